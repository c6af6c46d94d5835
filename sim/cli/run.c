/* smsim run: one simulation, its report (text or JSON) and an optional per-cycle trace. */
#include <stdio.h>
#include <string.h>

#include "../sm.h"
#include "../study/model.h"
#include "../study/runjson.h"
#include "cli.h"
#include "commands.h"
#include "report.h"

int
sm_cmd_run(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  g_autofree char *trace_path = NULL, *window = NULL, *warps = NULL;
  gboolean json = FALSE;
  gint limit_mb = 256;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Set a kernel parameter, kernel key or GPU key (dotted path)", "KEY=VALUE"},
      {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the results as one JSON object", NULL},
      {"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace_path,
       "Write a per-cycle trace: .txt timeline, .vcd waveform, .json Chrome trace events, .csv",
       "FILE"},
      {"trace-window", 0, 0, G_OPTION_ARG_STRING, &window, "Trace only cycles A to B-1", "A:B"},
      {"trace-warps", 0, 0, G_OPTION_ARG_STRING, &warps, "Trace only these warps", "0,2,4-7"},
      {"trace-limit-mb", 0, 0, G_OPTION_ARG_INT, &limit_mb,
       "Stop if the trace would exceed this size (default 256)", "MB"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("run", "GPU.yaml KERNEL.yaml - simulate a kernel on one SM", entries, &argc,
                    &argv))
    return 2;
  if (argc != 3)
    return sm_cli_usage("run needs GPU.yaml and KERNEL.yaml");
  GError *error = NULL;
  TraceOptions topts = {.from = 0, .to = G_MAXUINT64};
  if (limit_mb < 1) {
    fprintf(stderr, "--trace-limit-mb %d: must be at least 1\n", limit_mb);
    return 2;
  }
  topts.max_bytes = (guint64)limit_mb << 20;
  if ((window && !trace_parse_window(window, &topts, &error)) ||
      (warps && !trace_parse_warps(warps, &topts, &error))) {
    trace_options_clear(&topts);
    return sm_cli_fail(error);
  }
  if ((window || warps) && trace_path == NULL) {
    trace_options_clear(&topts);
    return sm_cli_usage("--trace-window and --trace-warps need --trace FILE");
  }
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!cfg_load_run(argv[1], argv[2], (const char *const *)sets, &gpu, &kernel, &error)) {
    trace_options_clear(&topts);
    return sm_cli_fail(error);
  }
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  g_autoptr(Sm) sm = sm_new(g, k);
  TraceSink *sink = NULL;
  if (trace_path) {
    sink = trace_sink_open(trace_path, &topts, &error);
    trace_options_clear(&topts);
    if (sink == NULL || !sm_attach_trace(sm, sink, &error)) {
      trace_sink_free(sink);
      return sm_cli_fail(error);
    }
  }
  trace_options_clear(&topts);
  sm_run(sm);
  if (sink) {
    gboolean ok = trace_sink_finish(sink, sm_stats(sm)->cycles, &error);
    trace_sink_free(sink);
    if (!ok)
      return sm_cli_fail(error);
  }
  if (json) {
    g_autoptr(JsonNode) node = sm_run_json(g, k, sm_stats(sm));
    g_autofree char *text = sm_json_node_text(node);
    printf("%s\n", text);
  } else {
    g_autoptr(GString) out = g_string_new(NULL);
    sm_report_text(g, k, sm_stats(sm), out);
    if (trace_path)
      g_string_append_printf(out, "wrote %s\n", trace_path);
    fputs(out->str, stdout);
  }
  return fflush(stdout) == 0 ? 0 : 1;
}
