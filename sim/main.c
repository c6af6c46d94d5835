/* The smsim command line. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "model.h"
#include "plot.h"
#include "occupancy.h"
#include "sweep.h"
#include "validate.h"
#include "report.h"
#include "sm.h"

#define EXIT_BAD_INPUT 2

static const char usage_text[] =
    "usage: smsim COMMAND ...\n"
    "  smsim run       GPU.yaml KERNEL.yaml [--set K=V]... [--json]\n"
    "                  [--trace FILE.{txt,vcd,json,csv} [--trace-window A:B] [--trace-warps "
    "LIST]]\n"
    "  smsim sweep     GPU.yaml KERNEL.yaml --vary K=LIST|A:B[:STEP]... [--set K=V]...\n"
    "                  [--csv FILE] [--json FILE] [--plot FILE.{png,svg}] [--jobs N]\n"
    "  smsim validate  GPU.yaml MEASUREMENTS.csv [--csv FILE] [--plot FILE] [--jobs N]\n"
    "  smsim occupancy GPU.yaml --threads-per-block T [--regs-per-thread R] [--smem-per-block B]\n"
    "  smsim describe  GPU.yaml [--set K=V]...\n"
    "Run 'smsim COMMAND --help' for a command's options.\n";

static int
cmd_run(int argc, char **argv)
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
    return EXIT_BAD_INPUT;
  if (argc != 3)
    return sm_cli_usage("run needs GPU.yaml and KERNEL.yaml");
  GError *error = NULL;
  TraceOptions topts = {.from = 0, .to = G_MAXUINT64};
  if (limit_mb < 1) {
    fprintf(stderr, "--trace-limit-mb %d: must be at least 1\n", limit_mb);
    return EXIT_BAD_INPUT;
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
    g_autofree char *text = sm_report_json(g, k, sm_stats(sm));
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

static void
describe_derived(const CfgGpu *g, GString *out)
{
  g_string_append(out, "\n# derived (model values, not simulation results)\nderived:\n");
  g_string_append_printf(out, "  peak_issue_ipc: %g            # schedulers x issue_width\n",
                         sm_model_issue_peak(g));
  g_string_append(out, "  peak_ipc:                     # warp-instructions/cycle/SM\n");
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    g_string_append_printf(out, "    %s: %g\n", isa_unit_name(u), sm_model_unit_peak(g, u));
  g_string_append_printf(out, "    shared_memory: %g\n", sm_model_smem_peak(g));
  g_string_append_printf(out, "  peak_flops_per_cycle: %g      # FADD lanes: 32 x peak alu\n",
                         32 * sm_model_unit_peak(g, ISA_UNIT_ALU));
  g_string_append(out, "  memory:\n");
  for (guint l = 0; l < g->memory.n_levels; l++) {
    const CfgMemLevel *lv = &g->memory.levels[l];
    g_string_append_printf(out,
                           "    %s: {peak_bytes_per_cycle: %g, peak_line_loads_per_cycle: %.4g, "
                           "gbytes_per_s_per_sm: %.3g}\n",
                           lv->name, lv->bytes_per_cycle, sm_model_level_peak(g, l),
                           lv->bytes_per_cycle * g->clock_mhz / 1000);
  }
  g_string_append(out, "  littles_law_warps:            # latency x peak throughput, one "
                       "dependent chain per warp\n");
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
    if (u == ISA_UNIT_LDST)
      continue;
    guint lat = g->units[u].latency_cycles;
    double thru = sm_model_unit_peak(g, u);
    g_string_append_printf(out, "    %s: %.1f                  # %u x %g\n", isa_unit_name(u),
                           lat * thru, lat, thru);
  }
  g_string_append_printf(out, "    shared_memory: %.1f        # %u x %g\n",
                         g->smem.latency_cycles * sm_model_smem_peak(g), g->smem.latency_cycles,
                         sm_model_smem_peak(g));
  for (guint l = 0; l < g->memory.n_levels; l++) {
    const CfgMemLevel *lv = &g->memory.levels[l];
    double thru = sm_model_level_peak(g, l);
    g_string_append_printf(out, "    %s: %.1f                 # %u x %.4g\n", lv->name,
                           lv->latency_cycles * thru, lv->latency_cycles, thru);
  }
}

static int
cmd_describe(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a GPU key (dotted path)", "KEY=VALUE"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("describe", "GPU.yaml - print a GPU with defaults and derived values", entries,
                    &argc, &argv))
    return EXIT_BAD_INPUT;
  if (argc != 2)
    return sm_cli_usage("describe needs GPU.yaml");
  GError *error = NULL;
  g_autoptr(CfgGpu) g = cfg_gpu_load_file_with_sets(argv[1], (const char *const *)sets, &error);
  if (g == NULL)
    return sm_cli_fail(error);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  describe_derived(g, out);
  fputs(out->str, stdout);
  return fflush(stdout) == 0 ? 0 : 1;
}

static int
dispatch(int argc, char **argv)
{
  if (argc < 2)
    return sm_cli_usage("no command given");
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (strcmp(cmd, "run") == 0)
    return cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "occupancy") == 0)
    return sm_cmd_occupancy(argc - 1, argv + 1);
  if (strcmp(cmd, "validate") == 0)
    return sm_cmd_validate(argc - 1, argv + 1);
  if (strcmp(cmd, "sweep") == 0)
    return sm_cmd_sweep(argc - 1, argv + 1);
  if (strcmp(cmd, "describe") == 0)
    return cmd_describe(argc - 1, argv + 1);
  g_autofree char *msg = g_strdup_printf("unknown command '%s'", cmd);
  return sm_cli_usage(msg);
}

int
main(int argc, char **argv)
{
  setlocale(LC_ALL, "C");
  int status = dispatch(argc, argv);
  sm_plot_shutdown();
  return status;
}
