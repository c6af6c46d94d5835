/* smsim run: one simulation, its report (text or JSON) and an optional per-cycle trace. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../sm.h"
#include "../study/model.h"
#include "../study/runjson.h"
#include "cli.h"
#include "commands.h"
#include "report.h"

typedef struct {
  gint64 start, shown;
} Watch;

/* On a terminal, after a second, a progress line on stderr, redrawn five times a second. */
static void
show_progress(const SmGpu *sm, gpointer data)
{
  Watch *w = data;
  gint64 now = g_get_monotonic_time();
  if (now - w->start <= G_USEC_PER_SEC || now - w->shown <= G_USEC_PER_SEC / 5)
    return;
  double s = (double)(now - w->start) / G_USEC_PER_SEC;
  guint64 issued = sm_stats(sm)->issued;
  fprintf(stderr,
          "\rrun: cycle %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
          " warp-instructions, %.1f M/s   ",
          sm_now(sm), issued, (double)issued / s / 1e6);
  fflush(stderr);
  w->shown = now;
}

/* Runs @sm to its end, or to @max_cycles: FALSE when that stopped it. */
static gboolean
run_watched(SmGpu *sm, guint64 max_cycles)
{
  Watch w = {g_get_monotonic_time(), 0};
  if (isatty(STDERR_FILENO))
    sm_set_progress(sm, show_progress, &w);
  sm_run_until(sm, max_cycles);
  sm_set_progress(sm, NULL, NULL);
  if (w.shown)
    fputc('\n', stderr);
  return sm_finished(sm) || sm_stop_requested() || sm_now(sm) < max_cycles;
}

/* --dump NAME=FILE: the buffer's index in @mem, or -1 after printing why not */
static gboolean
parse_dumps(const char *const *dumps, const char *option, ExecMemory *mem, GArray *index,
            GPtrArray *paths)
{
  for (guint i = 0; dumps && dumps[i]; i++) {
    const char *eq = strchr(dumps[i], '=');
    if (!eq || eq == dumps[i] || eq[1] == '\0') {
      fprintf(stderr, "%s %s: expected NAME=FILE (a buffer argument of the kernel)\n", option,
              dumps[i]);
      return FALSE;
    }
    if (!mem) {
      fprintf(stderr, "%s %s: only a kernel over SASS has buffers\n", option, dumps[i]);
      return FALSE;
    }
    g_autofree char *name = g_strndup(dumps[i], (gsize)(eq - dumps[i]));
    int found = -1;
    GString *names = g_string_new(NULL);
    for (guint b = 0; b < exec_memory_count(mem); b++) {
      g_string_append_printf(names, "%s%s", b ? ", " : "", exec_memory_name(mem, b));
      if (strcmp(exec_memory_name(mem, b), name) == 0)
        found = (int)b;
    }
    if (found < 0) {
      fprintf(stderr, "%s %s: the kernel has no buffer '%s' (it has: %s)\n", option, dumps[i], name,
              names->len ? names->str : "none");
      g_string_free(names, TRUE);
      return FALSE;
    }
    g_string_free(names, TRUE);
    g_array_append_val(index, found);
    g_ptr_array_add(paths, g_strdup(eq + 1));
  }
  return TRUE;
}

/* writes the buffers as they are now */
static gboolean
write_dumps(ExecMemory *mem, GArray *index, GPtrArray *paths)
{
  for (guint i = 0; i < index->len; i++) {
    gsize size;
    const guint8 *data = exec_memory_data(mem, g_array_index(index, guint, i), &size, NULL);
    if (!sm_cli_write_bytes(g_ptr_array_index(paths, i), data, size))
      return FALSE;
  }
  return TRUE;
}

int
sm_cmd_run(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL, dumps = NULL, dumps_initial = NULL;
  g_autofree char *trace_path = NULL, *window = NULL, *warps = NULL, *scale = NULL;
  gboolean json = FALSE, partial = FALSE;
  gint limit_mb = 256;
  g_autofree char *max_cycles_text = NULL;
  gboolean no_ff = FALSE;
  gint threads_opt = 0;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Set a kernel parameter, kernel key or GPU key (dotted path)", "KEY=VALUE"},
      {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the results as one JSON object", NULL},
      {"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace_path,
       "Write a per-cycle trace: .txt timeline, .vcd waveform, .json Chrome trace events, .csv "
       "instructions, .states.csv warp states, .png or .svg picture",
       "FILE"},
      {"trace-window", 0, 0, G_OPTION_ARG_STRING, &window, "Trace only cycles A to B-1", "A:B"},
      {"trace-scale", 0, 0, G_OPTION_ARG_STRING, &scale,
       "Text timeline: N cycles a column (default: as many as fit 120 columns, one for a run "
       "or window of up to 120 cycles)",
       "N"},
      {"trace-warps", 0, 0, G_OPTION_ARG_STRING, &warps, "Trace only these warps", "0,2,4-7"},
      {"trace-limit-mb", 0, 0, G_OPTION_ARG_INT, &limit_mb,
       "Stop if the trace would exceed this size (default 256)", "MB"},
      {"max-cycles", 0, 0, G_OPTION_ARG_STRING, &max_cycles_text,
       "Stop a run that reaches this many cycles, exit status 1 (default 10^12)", "N"},
      {"partial", 0, 0, G_OPTION_ARG_NONE, &partial,
       "With --max-cycles: still report what was simulated before the stop", NULL},
      {"dump", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dumps,
       "Kernels over SASS: write buffer NAME's bytes after the run (the whole allocation, "
       "little-endian)",
       "NAME=FILE"},
      {"dump-initial", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dumps_initial,
       "Kernels over SASS: write buffer NAME's bytes before the run", "NAME=FILE"},
      SM_CLI_NO_FAST_FORWARD(no_ff),
      SM_CLI_THREADS(threads_opt),
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("run", "GPU.yaml KERNEL.yaml - simulate a kernel (one SM, or sm_count of them)",
                    entries, &argc, &argv))
    return 2;
  sm_set_fast_forward(!no_ff);
  sm_set_mirroring(!no_ff);
  if (argc != 3)
    return sm_cli_usage("run needs GPU.yaml and KERNEL.yaml");
  g_autofree char *gpu_file = NULL, *kernel_file = NULL;
  if (!sm_cli_find_pair(argv[1], argv[2], &gpu_file, &kernel_file))
    return 2;
  argv[1] = gpu_file;
  argv[2] = kernel_file;
  GError *error = NULL;
  guint64 max_cycles;
  guint threads;
  if (!sm_cli_max_cycles(max_cycles_text, &max_cycles) || !sm_cli_threads(threads_opt, &threads))
    return 2;
  TraceOptions topts = {.from = 0, .to = G_MAXUINT64};
  if (limit_mb < 1) {
    fprintf(stderr, "--trace-limit-mb %d: must be at least 1\n", limit_mb);
    return 2;
  }
  topts.max_bytes = (guint64)limit_mb << 20;
  if ((window && !trace_parse_window(window, &topts, &error)) ||
      (warps && !trace_parse_warps(warps, &topts, &error)) ||
      (scale && !trace_parse_scale(scale, &topts, &error))) {
    trace_options_clear(&topts);
    return sm_cli_fail(error);
  }
  if ((window || warps || scale) && trace_path == NULL) {
    trace_options_clear(&topts);
    return sm_cli_usage("--trace-window, --trace-warps and --trace-scale need --trace FILE");
  }
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!cfg_load_run(argv[1], argv[2], (const char *const *)sets, &gpu, &kernel, &error)) {
    trace_options_clear(&topts);
    return sm_cli_fail(error);
  }
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  g_autoptr(SmGpu) sm = sm_new(g, k);
  sm_set_threads(sm, threads);
  g_autoptr(GArray) dump_index = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) initial_index = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GPtrArray) dump_paths = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) initial_paths = g_ptr_array_new_with_free_func(g_free);
  if (!parse_dumps((const char *const *)dumps, "--dump", sm_memory_image(sm), dump_index,
                   dump_paths) ||
      !parse_dumps((const char *const *)dumps_initial, "--dump-initial", sm_memory_image(sm),
                   initial_index, initial_paths)) {
    trace_options_clear(&topts);
    return 2;
  }
  if (!write_dumps(sm_memory_image(sm), initial_index, initial_paths)) {
    trace_options_clear(&topts);
    return 1;
  }
  TraceSink *sink = NULL;
  if (trace_path) {
    sink = trace_sink_open(trace_path, &topts, &error);
    trace_options_clear(&topts);
    if (sink == NULL || !sm_attach_trace(sm, sink, &error)) {
      trace_sink_free(sink);
      return g_error_matches(error, TRACE_ERROR, TRACE_ERROR_IO) ? sm_cli_write_error(error)
                                                                 : sm_cli_fail(error);
    }
  }
  trace_options_clear(&topts);
  gboolean limited = !run_watched(sm, max_cycles);
  if (sm_stop_requested()) {
    trace_sink_free(sink); /* removes its temporary file */
    return 0;              /* main reports the interruption */
  }
  if (sm_error(sm)) {
    trace_sink_free(sink);
    fprintf(stderr, "%s\n", sm_error(sm)->message);
    return 1;
  }
  if (limited) {
    trace_sink_free(sink);
    fprintf(stderr,
            "%s + %s: stopped at cycle %" G_GUINT64_FORMAT " (--max-cycles %" G_GUINT64_FORMAT
            "), the run was not finished%s\n",
            argv[1], argv[2], sm_now(sm), max_cycles,
            partial ? "; what was simulated so far follows" : "");
    if (!partial)
      return 1;
    sm_close(sm);
    trace_path = NULL;
    sink = NULL;
  }
  if (sink) {
    gboolean ok = trace_sink_finish(sink, sm_stats(sm)->cycles, &error);
    trace_sink_free(sink);
    if (!ok)
      return g_error_matches(error, TRACE_ERROR, TRACE_ERROR_IO) ? sm_cli_write_error(error)
                                                                 : sm_cli_fail(error);
  }
  if (!limited && !write_dumps(sm_memory_image(sm), dump_index, dump_paths))
    return 1;
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
  return limited ? 1 : 0;
}
