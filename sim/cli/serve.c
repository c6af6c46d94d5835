/* smsim serve: the lab page for a class (serve/), until Ctrl-C or SIGTERM. */
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

#include "../serve/server.h"
#include "cli.h"
#include "commands.h"

static gboolean
quit(gpointer data)
{
  g_main_loop_quit(data);
  return G_SOURCE_CONTINUE;
}

/* A positive whole number option within [min, max]; FALSE after printing why not. */
static gboolean
check_range(const char *option, gint64 value, gint64 min, gint64 max)
{
  if (value >= min && value <= max)
    return TRUE;
  fprintf(stderr, "%s %" G_GINT64_FORMAT ": must be %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT "\n",
          option, value, min, max);
  return FALSE;
}

int
sm_cmd_serve(int argc, char **argv)
{
  gint port = 8080, jobs = 0, queue = -1, max_points = SM_LAB_DEFAULT_MAX_POINTS;
  gint max_body_kb = SM_LAB_DEFAULT_MAX_BODY >> 10;
  g_autofree char *bind = NULL, *max_cycles_text = NULL, *port_file = NULL;
  double max_seconds = SM_LAB_DEFAULT_MAX_SECONDS;
  const GOptionEntry entries[] = {
      {"port", 'p', 0, G_OPTION_ARG_INT, &port, "Port to listen on (default 8080; 0: any free one)",
       "N"},
      {"bind", 0, 0, G_OPTION_ARG_STRING, &bind,
       "Address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 for a class's "
       "network)",
       "ADDR"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
       "Runs and sweeps at once (default: one per core, at most 8)", "N"},
      {"queue", 0, 0, G_OPTION_ARG_INT, &queue,
       "Requests that may wait for a job; past them the answer is 503 busy (default 4 x jobs)",
       "N"},
      {"max-cycles", 0, 0, G_OPTION_ARG_STRING, &max_cycles_text,
       "Simulated cycles a run may take (default 5 x 10^7)", "N"},
      {"max-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &max_seconds,
       "Wall time a run or sweep may take (default 30)", "S"},
      {"max-points", 0, 0, G_OPTION_ARG_INT, &max_points, "Runs a sweep may ask for (default 512)",
       "N"},
      {"max-body-kb", 0, 0, G_OPTION_ARG_INT, &max_body_kb,
       "Largest request body in KiB, pasted GPU files included (default 256)", "KB"},
      {"port-file", 0, 0, G_OPTION_ARG_FILENAME, &port_file,
       "Write the port listened on to this file once listening (for scripts with --port 0)",
       "FILE"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("serve",
                    "- the lab page: a web page where students run kernels and watch warps hide "
                    "latency (docs/lab.md)",
                    entries, &argc, &argv))
    return 2;
  if (argc != 1)
    return sm_cli_usage("serve takes no arguments besides its options");
  guint64 max_cycles = SM_LAB_DEFAULT_MAX_CYCLES;
  if (max_cycles_text && !sm_cli_max_cycles(max_cycles_text, &max_cycles))
    return 2;
  if (jobs == 0)
    jobs = (gint)MIN(g_get_num_processors(), 8u);
  if (queue < 0)
    queue = 4 * jobs;
  if (!check_range("--port", port, 0, 65535) || !check_range("--jobs", jobs, 1, 256) ||
      !check_range("--queue", queue, 0, 4096) ||
      !check_range("--max-points", max_points, 1, 100000) ||
      !check_range("--max-body-kb", max_body_kb, 1, 65536))
    return 2;
  if (!(max_seconds > 0 && max_seconds <= 86400)) {
    fprintf(stderr, "--max-seconds %g: must be above 0 and at most 86400\n", max_seconds);
    return 2;
  }
  SmLabLimits limits = {.max_cycles = max_cycles,
                        .max_seconds = max_seconds,
                        .max_body_bytes = (gsize)max_body_kb << 10,
                        .max_yaml_bytes = MIN((gsize)max_body_kb << 10, SM_LAB_DEFAULT_MAX_YAML),
                        .max_sweep_points = (guint)max_points};
  GError *error = NULL;
  g_autoptr(SmLab) lab = sm_lab_new(&limits, &error);
  if (lab == NULL)
    return sm_cli_fail(error);
  g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
  g_autoptr(SmServer) server = sm_server_new(lab, (guint)jobs, (guint)queue);
  if (!sm_server_listen(server, bind ? bind : "127.0.0.1", (guint)port, &error))
    return sm_cli_fail(error);
  g_autofree char *uri = sm_server_uri(server);
  if (port_file) {
    g_autoptr(GUri) parsed = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
    g_autofree char *text = g_strdup_printf("%d\n", parsed ? g_uri_get_port(parsed) : port);
    if (!sm_cli_write_file(port_file, text))
      return 1;
  }
  printf("smsim serve: open %s in a browser (%d jobs, %d more may wait; Ctrl-C stops)\n", uri, jobs,
         queue);
  fflush(stdout);
  guint sigint = g_unix_signal_add(SIGINT, quit, loop);
  guint sigterm = g_unix_signal_add(SIGTERM, quit, loop);
  g_main_loop_run(loop);
  g_source_remove(sigint);
  g_source_remove(sigterm);
  printf("smsim serve: stopped after %u answers (%u runs cancelled because their client left)\n",
         sm_server_served(server), sm_server_cancelled(server));
  return 0;
}
