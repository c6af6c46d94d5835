/* smsim serve's API from a client (libsoup's, as a script would call it): each endpoint, each
 * refusal with its status and message, a run's JSON equal to `smsim run --json`'s and its
 * picture equal to `smsim run --trace FILE.svg`'s, the queue's bound, the bounds of a run, and
 * a run cancelled when its client leaves. */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <string.h>

#include "helpers.h"
#include "lab-server.h"

static LabServer *server;

typedef struct {
  guint status;
  JsonNode *body; /* NULL when not JSON */
  char *text;
} Answer;

static void
answer_clear(Answer *a)
{
  if (a->body)
    json_node_unref(a->body);
  g_free(a->text);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Answer, answer_clear)

/* @method @path with @body (NULL: none) on @s; the status and the JSON answered. */
static Answer
request_on(LabServer *s, const char *method, const char *path, const char *body)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options("timeout", 120, NULL);
  g_autofree char *url = g_strdup_printf("%s%s", lab_server_url(s), path);
  g_autoptr(SoupMessage) msg = soup_message_new(method, url);
  ck_assert_ptr_nonnull(msg);
  if (body) {
    g_autoptr(GBytes) bytes = g_bytes_new(body, strlen(body));
    soup_message_set_request_body_from_bytes(msg, "application/json", bytes);
  }
  GError *error = NULL;
  g_autoptr(GBytes) reply = soup_session_send_and_read(session, msg, NULL, &error);
  ck_assert_msg(reply != NULL, "%s %s: %s", method, path, error ? error->message : "?");
  Answer a = {.status = soup_message_get_status(msg)};
  gsize n;
  const char *data = g_bytes_get_data(reply, &n);
  a.text = g_strndup(data, n);
  g_autoptr(JsonParser) parser = json_parser_new();
  if (json_parser_load_from_data(parser, a.text, (gssize)n, NULL) && json_parser_get_root(parser))
    a.body = json_node_copy(json_parser_get_root(parser));
  return a;
}

static Answer
request(const char *method, const char *path, const char *body)
{
  return request_on(server, method, path, body);
}

static const char *
member_string(JsonNode *node, const char *name)
{
  ck_assert_ptr_nonnull(node);
  JsonObject *o = json_node_get_object(node);
  ck_assert_msg(json_object_has_member(o, name), "no member %s", name);
  return json_object_get_string_member(o, name);
}

/* A refusal: @status, and an error message holding @words. */
static void
assert_refused(const char *method, const char *path, const char *body, guint status,
               const char *words)
{
  g_auto(Answer) a = request(method, path, body);
  ck_assert_msg(a.status == status, "%s %s: status %u, not %u: %s", method, path, a.status, status,
                a.text);
  const char *error = member_string(a.body, "error");
  ck_assert_msg(strstr(error, words), "%s %s: '%s' lacks '%s'", method, path, error, words);
  ck_assert_int_eq(json_object_get_int_member(json_node_get_object(a.body), "status"), status);
}

static JsonObject *
find_named(JsonArray *a, const char *name)
{
  for (guint i = 0; i < json_array_get_length(a); i++) {
    JsonObject *o = json_array_get_object_element(a, i);
    if (strcmp(json_object_get_string_member(o, "name"), name) == 0)
      return o;
  }
  ck_abort_msg("no %s", name);
  return NULL;
}

START_TEST(test_catalogue)
{
  g_auto(Answer) g = request("GET", "/api/gpus", NULL);
  ck_assert_uint_eq(g.status, 200);
  JsonObject *h100 =
      find_named(json_object_get_array_member(json_node_get_object(g.body), "gpus"), "h100");
  ck_assert_int_eq(json_object_get_int_member(h100, "max_warps"), 64);
  JsonObject *peaks = json_object_get_object_member(h100, "peaks");
  ck_assert_double_eq(json_object_get_double_member(peaks, "ipc"), 4.0);
  /* the sliders of the memory levels: dram's latency, 714 cycles in the preset */
  JsonArray *keys = json_object_get_array_member(h100, "keys");
  JsonObject *first = json_array_get_object_element(keys, 0);
  ck_assert_str_eq(json_object_get_string_member(first, "key"), "memory.dram.latency_cycles");
  ck_assert_double_eq(json_object_get_double_member(first, "value"), 714);

  g_auto(Answer) k = request("GET", "/api/kernels", NULL);
  ck_assert_uint_eq(k.status, 200);
  JsonObject *mix =
      find_named(json_object_get_array_member(json_node_get_object(k.body), "kernels"), "mix");
  JsonObject *alpha = find_named(json_object_get_array_member(mix, "params"), "alpha");
  ck_assert_str_eq(json_object_get_string_member(alpha, "default"), "8");
  ck_assert_double_eq(json_object_get_double_member(alpha, "max"), 256);
  ck_assert_str_eq(json_object_get_string_member(alpha, "meaning"),
                   "FADDs per other instruction (arithmetic intensity)");
  JsonObject *other = find_named(json_object_get_array_member(mix, "params"), "other");
  ck_assert_uint_eq(json_array_get_length(json_object_get_array_member(other, "choices")), 4);

  g_auto(Answer) x = request("GET", "/api/explain", NULL);
  ck_assert_uint_eq(x.status, 200);
  JsonObject *drain =
      find_named(json_object_get_array_member(json_node_get_object(x.body), "states"), "drain");
  ck_assert_str_eq(json_object_get_string_member(drain, "colour"), "#e377c2");

  g_auto(Answer) l = request("GET", "/api/limits", NULL);
  ck_assert_uint_eq(l.status, 200);
  ck_assert_int_eq(json_object_get_int_member(json_node_get_object(l.body), "max_cycles"),
                   SM_LAB_DEFAULT_MAX_CYCLES);

  g_auto(Answer) page = request("GET", "/", NULL);
  ck_assert_uint_eq(page.status, 200);
  ck_assert_ptr_nonnull(strstr(page.text, "<script src=\"lab.js\""));
  g_auto(Answer) js = request("GET", "/lab.js", NULL);
  ck_assert_uint_eq(js.status, 200);
  ck_assert_ptr_nonnull(strstr(js.text, "api/run"));
}
END_TEST

/* The run's object is `smsim run --json`'s for the same inputs, and its picture the file
 * `smsim run --trace` writes. */
START_TEST(test_run_equals_cli)
{
  g_auto(Answer) a = request("POST", "/api/run",
                             "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": "
                             "{\"warps_per_sm\": 8, \"alpha\": \"4\", "
                             "\"memory.dram.latency_cycles\": 500}}");
  ck_assert_msg(a.status == 200, "%s", a.text);
  g_autofree char *dir = test_temp_dir("smsim-serve-XXXXXX");
  g_autofree char *svg_path = g_build_filename(dir, "t.svg", NULL);
  const char *args[] = {"run",     "h100",           "mix",
                        "--set",   "warps_per_sm=8", "--set",
                        "alpha=4", "--set",          "memory.dram.latency_cycles=500",
                        "--json",  "--trace",        svg_path,
                        NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  g_autoptr(JsonParser) parser = json_parser_new();
  ck_assert(json_parser_load_from_data(parser, out, -1, NULL));
  JsonObject *o = json_node_get_object(a.body);
  JsonNode *run = json_object_get_member(o, "run");
  ck_assert_msg(json_node_equal(run, json_parser_get_root(parser)),
                "the run's JSON differs from smsim run --json's");
  ck_assert_int_eq(
      json_object_get_int_member(json_node_get_object(run), "cycles"),
      json_object_get_int_member(json_node_get_object(json_parser_get_root(parser)), "cycles"));
  g_autofree char *svg = NULL;
  ck_assert(g_file_get_contents(svg_path, &svg, NULL, NULL));
  ck_assert_msg(strcmp(json_object_get_string_member(o, "picture_svg"), svg) == 0,
                "the picture differs from smsim run --trace's");
  g_unlink(svg_path);
  g_rmdir(dir);
  /* the numbers beside it: Little's law (describe's: 500 cycles x 11/128 line loads a cycle) */
  JsonArray *little = json_object_get_array_member(o, "littles_law");
  JsonObject *d = json_array_get_object_element(little, 0);
  ck_assert_str_eq(json_object_get_string_member(d, "name"), "describe");
  ck_assert_double_eq_tol(json_object_get_double_member(d, "warps"), 500 * 11.0 / 128, 1e-9);
  JsonObject *peaks = json_object_get_object_member(o, "against_peaks");
  JsonObject *ipc = json_object_get_object_member(peaks, "ipc");
  ck_assert_double_eq_tol(json_object_get_double_member(ipc, "share"),
                          json_object_get_double_member(ipc, "value") / 4.0, 1e-12);
  /* the same request twice: the same bytes */
  g_auto(Answer) b = request("POST", "/api/run",
                             "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": "
                             "{\"warps_per_sm\": 8, \"alpha\": \"4\", "
                             "\"memory.dram.latency_cycles\": 500}}");
  ck_assert_str_eq(json_object_get_string_member(json_node_get_object(b.body), "picture_svg"),
                   json_object_get_string_member(o, "picture_svg"));
}
END_TEST

START_TEST(test_sweep)
{
  g_auto(Answer) a =
      request("POST", "/api/sweep",
              "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"warps_per_sm\": 8},"
              " \"warps\": [1, 8, 32, 64], \"vary\": {\"key\": \"alpha\", "
              "\"values\": [2, 8]}, \"mark\": true}");
  ck_assert_msg(a.status == 200, "%s", a.text);
  JsonObject *o = json_node_get_object(a.body);
  JsonObject *sweep = json_object_get_object_member(o, "sweep");
  JsonArray *points = json_object_get_array_member(sweep, "points");
  ck_assert_uint_eq(json_array_get_length(points), 8);
  ck_assert_uint_eq(json_array_get_length(json_object_get_array_member(sweep, "curves")), 2);
  /* the point at alpha 8 and 8 warps is the run's: 50 198 cycles */
  JsonObject *p = json_array_get_object_element(points, 5);
  ck_assert_str_eq(json_object_get_string_member(p, "alpha"), "8");
  ck_assert_str_eq(json_object_get_string_member(p, "warps_per_sm"), "8");
  ck_assert_double_eq(json_object_get_double_member(p, "cycles"), 50198);
  const char *svg = json_object_get_string_member(o, "plot_svg");
  ck_assert_msg(g_str_has_prefix(svg, "<?xml") && strstr(svg, "</svg>"), "not an SVG");
}
END_TEST

START_TEST(test_refusals)
{
  assert_refused("POST", "/api/run", "{\"gpu\": \"h10\", \"kernel\": \"mix\"}", 404,
                 "did you mean 'h100'");
  assert_refused("POST", "/api/run", "{\"gpu\": \"h100\", \"kernel\": \"mixx\"}", 404,
                 "did you mean 'mix'");
  /* a path names nothing: only the catalogue's names do */
  assert_refused("POST", "/api/run", "{\"gpu\": \"h100\", \"kernel\": \"../isa/kernels/mix\"}", 404,
                 "no kernel '../isa/kernels/mix'");
  assert_refused("POST", "/api/run", "{\"gpu\": \"/etc/passwd\", \"kernel\": \"mix\"}", 404,
                 "no gpu '/etc/passwd'");
  assert_refused("POST", "/api/run",
                 "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"sass\": \"/etc/passwd\"}}",
                 400, "not the kernel file's 'sass'");
  assert_refused("POST", "/api/run",
                 "{\"gpu_yaml\": \"schedulers: 4\\nwarp_size: 32\\n\", \"kernel\": \"mix\"}", 400,
                 "pasted.yaml:2:1: unknown key 'warp_size'");
  /* nested past the loader's limit, within the body's bound */
  GString *deep = g_string_new("{\"gpu_yaml\": \"schedulers: ");
  for (guint i = 0; i < 20000; i++)
    g_string_append_c(deep, '[');
  g_string_append(deep, "\"}");
  assert_refused("POST", "/api/gpu", deep->str, 400, "pasted.yaml:1:76: nested deeper than 64");
  g_string_free(deep, TRUE);
  assert_refused("POST", "/api/gpu", "{\"gpu_yaml\": \"schedulers: [\"}", 400,
                 "pasted.yaml:2:1: did not find expected node");
  assert_refused("POST", "/api/run",
                 "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"alpha\": -1}}", 400,
                 "mix.yaml:");
  assert_refused("POST", "/api/run", "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"bogus\": 1}", 400,
                 "unknown member 'bogus'");
  assert_refused("POST", "/api/run", "not json", 400, "not JSON");
  assert_refused("POST", "/api/run", "[1, 2]", 400, "a JSON object");
  assert_refused("GET", "/api/run", NULL, 405, "send a JSON object with POST");
  assert_refused("POST", "/api/gpus", "{}", 405, "read it with GET");
  assert_refused("GET", "/api/nothing", NULL, 404, "no API /api/nothing");
  assert_refused("GET", "/../../etc/passwd", NULL, 404, "no page");
  /* a body beyond the bound: refused before it is read */
  GString *big = g_string_new("{\"gpu_yaml\": \"");
  while (big->len < SM_LAB_DEFAULT_MAX_BODY + 10)
    g_string_append(big, "# padding padding padding padding\\n");
  g_string_append(big, "\", \"kernel\": \"mix\"}");
  assert_refused("POST", "/api/run", big->str, 413, "at most 262144");
  g_string_free(big, TRUE);
  /* pasted YAML beyond its own bound, in a body within the body's */
  GString *yaml = g_string_new("{\"gpu_yaml\": \"");
  while (yaml->len < SM_LAB_DEFAULT_MAX_YAML + 4096)
    g_string_append(yaml, "# padding padding padding padding\\n");
  g_string_append(yaml, "\", \"kernel\": \"mix\"}");
  assert_refused("POST", "/api/run", yaml->str, 413, "gpu_yaml is");
  g_string_free(yaml, TRUE);
  assert_refused("POST", "/api/sweep",
                 "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"warps\": \"1:64\", \"vary\": "
                 "{\"key\": \"alpha\", \"values\": \"1:20\"}}",
                 413, "at most 512");
}
END_TEST

/* A server of one job and no queue, with these bounds and small bodies. */
static LabServer *
small_server(guint64 max_cycles, double max_seconds)
{
  SmLabLimits limits = {.max_cycles = max_cycles,
                        .max_seconds = max_seconds,
                        .max_body_bytes = 4096,
                        .max_yaml_bytes = 1024,
                        .max_sweep_points = 16};
  return lab_server_start(&limits, 1, 0);
}

/* Bounds: a run past its simulated cycles, a request past its seconds, the queue full. */
START_TEST(test_bounds)
{
  LabServer *s = small_server(100000, 0.3);
  {
    g_auto(Answer) a = request_on(s, "POST", "/api/run",
                                  "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"groups\": "
                                  "100000}, \"picture\": false}");
    ck_assert_msg(a.status == 422 && strstr(a.text, "reached 100000 simulated cycles"), "%s",
                  a.text);
  }
  lab_server_stop(s);
  s = small_server(SM_LAB_DEFAULT_MAX_CYCLES, 0.3);
  {
    g_auto(Answer) a = request_on(s, "POST", "/api/run",
                                  "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"groups\": "
                                  "20000000, \"warps_per_sm\": 64}, \"picture\": false}");
    ck_assert_msg(a.status == 422 && strstr(a.text, "took more than 0.3 s"), "%s", a.text);
  }
  lab_server_stop(s);
}
END_TEST

typedef struct {
  LabServer *server;
  Answer answer;
} Pending;

static gpointer
long_request(gpointer data)
{
  Pending *p = data;
  p->answer = request_on(p->server, "POST", "/api/run",
                         "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"groups\": 20000000,"
                         " \"warps_per_sm\": 64}, \"picture\": false}");
  return NULL;
}

START_TEST(test_busy)
{
  LabServer *s = small_server(G_MAXUINT64 / 2, 2);
  Pending p = {.server = s};
  GThread *t = g_thread_new("long", long_request, &p);
  /* once the long run holds the only job (and no place waits), a second one is refused */
  for (guint i = 0; i < 1000 && sm_server_pending(lab_server_server(s)) == 0; i++)
    g_usleep(5000);
  ck_assert_uint_eq(sm_server_pending(lab_server_server(s)), 1);
  {
    g_auto(Answer) a = request_on(s, "POST", "/api/run",
                                  "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"picture\": false}");
    ck_assert_msg(a.status == 503 && strstr(a.text, "busy: 1 runs going and 0 waiting"), "%s",
                  a.text);
  }
  g_thread_join(t);
  ck_assert_msg(p.answer.status == 422, "%s", p.answer.text);
  answer_clear(&p.answer);
  lab_server_stop(s);
}
END_TEST

/* A client that leaves: its run stops (counted as cancelled) long before its bound. */
START_TEST(test_cancel)
{
  LabServer *s = small_server(G_MAXUINT64 / 2, 60);
  const char *body = "{\"gpu\": \"h100\", \"kernel\": \"mix\", \"set\": {\"groups\": 200000000, "
                     "\"warps_per_sm\": 64}, \"picture\": false}";
  g_autoptr(GSocketClient) client = g_socket_client_new();
  GError *error = NULL;
  g_autoptr(GSocketConnection) c = g_socket_client_connect_to_host(
      client, "127.0.0.1", (guint16)lab_server_port(s), NULL, &error);
  ck_assert_msg(c != NULL, "%s", error ? error->message : "?");
  g_autofree char *req = g_strdup_printf("POST /api/run HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                         "Content-Type: application/json\r\n"
                                         "Content-Length: %zu\r\n\r\n%s",
                                         strlen(body), body);
  GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(c));
  ck_assert(g_output_stream_write_all(out, req, strlen(req), NULL, NULL, NULL));
  g_usleep(300000); /* the run has started */
  gint64 start = g_get_monotonic_time();
  ck_assert(g_io_stream_close(G_IO_STREAM(c), NULL, NULL));
  while (sm_server_cancelled(lab_server_server(s)) == 0 &&
         g_get_monotonic_time() - start < 20 * G_USEC_PER_SEC)
    g_usleep(10000);
  ck_assert_uint_eq(sm_server_cancelled(lab_server_server(s)), 1);
  ck_assert_msg(g_get_monotonic_time() - start < 5 * G_USEC_PER_SEC,
                "the run went on %.1f s after its client left",
                (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC);
  lab_server_stop(s);
}
END_TEST

static void
setup(void)
{
  server = lab_server_start(NULL, 2, 8);
}

static void
teardown(void)
{
  lab_server_stop(server);
}

static Suite *
suite(void)
{
  Suite *s = suite_create("serve");
  TCase *api = tcase_create("api");
  tcase_add_checked_fixture(api, setup, teardown);
  tcase_add_test(api, test_catalogue);
  tcase_add_test(api, test_run_equals_cli);
  tcase_add_test(api, test_sweep);
  tcase_add_test(api, test_refusals);
  suite_add_tcase(s, api);
  TCase *bounds = tcase_create("bounds");
  tcase_add_test(bounds, test_bounds);
  tcase_add_test(bounds, test_busy);
  tcase_add_test(bounds, test_cancel);
  suite_add_tcase(s, bounds);
  return s;
}

int
main(void)
{
  return test_run_suite(suite());
}
