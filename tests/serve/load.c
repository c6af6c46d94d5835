/* The lab server under a class's load: 8 clients, 400 requests in all (the page's GETs, runs at
 * several warps with and without their picture, a few sweeps), on 127.0.0.1, each answered 200
 * within the time bound; then the latencies' percentiles.
 *
 *   test-serve-load [--out FILE] [--jobs N] [--max-seconds S]
 *
 * Exits 1 on any failure or when all of it takes more than --max-seconds (default 600).  Under
 * AddressSanitizer the server's leaks show at exit.  bench/lab-load.sh runs it on a release
 * build and keeps the percentiles in bench/lab-load.txt. */
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab-server.h"

#define CLIENTS 8
#define PER_CLIENT 50

typedef struct {
  LabServer *server;
  guint client;
  double latency[PER_CLIENT];
  const char *kind[PER_CLIENT];
  guint failures;
  char *first_failure;
} Client;

static gpointer
client_main(gpointer data)
{
  Client *c = data;
  g_autoptr(SoupSession) session = soup_session_new_with_options("timeout", 300, NULL);
  for (guint i = 0; i < PER_CLIENT; i++) {
    guint r = (c->client * PER_CLIENT + i) % 10;
    const char *method = "POST", *path = "/api/run";
    g_autofree char *body = NULL;
    if (r == 0 || r == 5) {
      method = "GET";
      path = r == 0 ? "/api/gpus" : "/api/kernels";
      c->kind[i] = "get";
    } else if (r == 9 && i % 5 == 4) {
      path = "/api/sweep";
      body = g_strdup_printf("{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"alpha\": %u}, "
                             "\"warps\": [1, 4, 16, 64], \"mark\": true}",
                             1 + c->client);
      c->kind[i] = "sweep";
    } else {
      /* a student moving the warps slider: a run with its picture, or without */
      body =
          g_strdup_printf("{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": "
                          "{\"warps_per_sm\": %u, \"alpha\": %u}, \"picture\": %s}",
                          1 + (c->client * 7 + i * 3) % 64, 1 << (i % 5), i % 2 ? "true" : "false");
      c->kind[i] = i % 2 ? "run+picture" : "run";
    }
    g_autofree char *url = g_strdup_printf("%s%s", lab_server_url(c->server), path);
    g_autoptr(SoupMessage) msg = soup_message_new(method, url);
    if (body) {
      g_autoptr(GBytes) bytes = g_bytes_new(body, strlen(body));
      soup_message_set_request_body_from_bytes(msg, "application/json", bytes);
    }
    gint64 start = g_get_monotonic_time();
    GError *error = NULL;
    g_autoptr(GBytes) reply = soup_session_send_and_read(session, msg, NULL, &error);
    c->latency[i] = (double)(g_get_monotonic_time() - start) / 1000.0;
    guint status = soup_message_get_status(msg);
    if (reply == NULL || status != 200) {
      if (c->failures++ == 0)
        c->first_failure = g_strdup_printf(
            "%s %s: %s", method, path,
            error ? error->message
                  : g_strndup(g_bytes_get_data(reply, NULL), g_bytes_get_size(reply)));
    }
    g_clear_error(&error);
  }
  return NULL;
}

static int
by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The @p-th percentile of the sorted @v (nearest rank). */
static double
percentile(const double *v, guint n, double p)
{
  guint rank = (guint)(p / 100.0 * n + 0.999999);
  return v[MIN(MAX(rank, 1u), n) - 1];
}

int
main(int argc, char **argv)
{
  const char *out_path = NULL;
  guint jobs = 2;
  double max_seconds = 600;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--out") == 0)
      out_path = argv[i + 1];
    else if (strcmp(argv[i], "--jobs") == 0)
      jobs = (guint)atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--max-seconds") == 0)
      max_seconds = atof(argv[i + 1]);
  }
  /* the queue holds every client's request: nobody is answered busy */
  LabServer *server = lab_server_start(NULL, jobs, CLIENTS);
  Client clients[CLIENTS] = {0};
  GThread *threads[CLIENTS];
  gint64 start = g_get_monotonic_time();
  for (guint c = 0; c < CLIENTS; c++) {
    clients[c].server = server;
    clients[c].client = c;
    threads[c] = g_thread_new("client", client_main, &clients[c]);
  }
  for (guint c = 0; c < CLIENTS; c++)
    g_thread_join(threads[c]);
  double wall = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
  guint served = sm_server_served(lab_server_server(server));
  lab_server_stop(server);

  guint failures = 0, n = 0;
  double all[CLIENTS * PER_CLIENT], runs[CLIENTS * PER_CLIENT];
  guint n_runs = 0;
  for (guint c = 0; c < CLIENTS; c++) {
    failures += clients[c].failures;
    if (clients[c].first_failure) {
      fprintf(stderr, "client %u: %s\n", c, clients[c].first_failure);
      g_free(clients[c].first_failure);
    }
    for (guint i = 0; i < PER_CLIENT; i++) {
      all[n++] = clients[c].latency[i];
      if (g_str_has_prefix(clients[c].kind[i], "run"))
        runs[n_runs++] = clients[c].latency[i];
    }
  }
  qsort(all, n, sizeof all[0], by_value);
  qsort(runs, n_runs, sizeof runs[0], by_value);
  g_autoptr(GString) report = g_string_new(NULL);
  g_string_append_printf(report,
                         "# smsim serve under load: %u clients x %u requests on 127.0.0.1, %u jobs "
                         "(tests/serve/load.c)\n",
                         CLIENTS, PER_CLIENT, jobs);
  g_string_append_printf(report, "requests %u, answered 200 %u, failed %u, wall %.2f s, %.1f/s\n",
                         n, served, failures, wall, n / wall);
  for (guint k = 0; k < 2; k++) {
    const double *v = k == 0 ? all : runs;
    guint m = k == 0 ? n : n_runs;
    g_string_append_printf(
        report, "%-8s latency ms: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f  (%u requests)\n",
        k == 0 ? "all" : "runs", percentile(v, m, 50), percentile(v, m, 90), percentile(v, m, 99),
        v[m - 1], m);
  }
  fputs(report->str, stdout);
  if (out_path && !g_file_set_contents(out_path, report->str, -1, NULL)) {
    fprintf(stderr, "%s: cannot write\n", out_path);
    return 1;
  }
  if (failures || served != n) {
    fprintf(stderr, "%u requests failed (%u answered of %u)\n", failures, served, n);
    return 1;
  }
  if (wall > max_seconds) {
    fprintf(stderr, "took %.1f s, more than %.0f s\n", wall, max_seconds);
    return 1;
  }
  return 0;
}
