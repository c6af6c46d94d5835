/* The lab's HTTP server (server.h): routes, the page's files, bounded bodies, the job pool and
 * its queue, cancellation of runs whose client went away.  Not what a run answers (lab.c). */
#include "server.h"

#include <errno.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/socket.h>

#include "lab-page.h"

struct SmServer {
  SmLab *lab;
  SoupServer *soup;
  GMainContext *context;
  GThreadPool *pool;
  guint jobs, queue;
  guint pending;          /* jobs running or waiting (main thread only) */
  GPtrArray *running;     /* Job: every job handed to the pool and not yet answered */
  guint watch;            /* the timeout that looks for clients gone away */
  gint served, cancelled; /* atomic: read from other threads */
};

typedef enum { JOB_RUN, JOB_SWEEP } JobKind;

typedef struct {
  SmServer *server;
  SoupServerMessage *msg; /* a reference, while paused */
  JobKind kind;
  GBytes *body;
  gint cancel; /* raised (atomically) when the client goes away or the server stops */
  gulong disconnected;
  JsonNode *answer;
  GError *error;
} Job;

/* ---- answers ---- */

static void
set_common_headers(SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers(msg);
  soup_message_headers_replace(h, "Cache-Control", "no-store");
  soup_message_headers_replace(h, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace(h, "Referrer-Policy", "no-referrer");
  /* the page loads nothing from elsewhere; pictures come as blobs of SVG */
  soup_message_headers_replace(
      h, "Content-Security-Policy",
      "default-src 'self'; img-src 'self' blob: data:; connect-src 'self' blob:; "
      "style-src 'self'; script-src 'self'; object-src 'none'; "
      "frame-ancestors 'none'");
}

static void
answer_json(SoupServerMessage *msg, guint status, JsonNode *node)
{
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, node);
  gsize n;
  char *text = json_generator_to_data(gen, &n);
  set_common_headers(msg);
  soup_server_message_set_status(msg, status, NULL);
  soup_server_message_set_response(msg, "application/json", SOUP_MEMORY_TAKE, text, n);
}

static void
answer_error(SoupServerMessage *msg, const GError *error)
{
  g_autoptr(JsonNode) node = sm_lab_error_json(error);
  answer_json(msg, sm_lab_error_status(error), node);
}

static void refuse(SoupServerMessage *msg, SmLabErrorCode code, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static void
refuse(SoupServerMessage *msg, SmLabErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *text = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_autoptr(GError) error = g_error_new_literal(SM_LAB_ERROR, code, text);
  answer_error(msg, error);
}

/* The page's files, built into the program (page/). */
static void
answer_page(SoupServerMessage *msg, const char *path)
{
  static const struct {
    const char *path, *resource, *type;
  } files[] = {{"/", "/smsim/lab/index.html", "text/html; charset=utf-8"},
               {"/index.html", "/smsim/lab/index.html", "text/html; charset=utf-8"},
               {"/lab.css", "/smsim/lab/lab.css", "text/css; charset=utf-8"},
               {"/lab.js", "/smsim/lab/lab.js", "text/javascript; charset=utf-8"}};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    if (strcmp(path, files[i].path) != 0)
      continue;
    g_autoptr(GBytes) data = g_resource_lookup_data(sm_lab_page_get_resource(), files[i].resource,
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
    if (data == NULL)
      break;
    gsize n;
    const char *bytes = g_bytes_get_data(data, &n);
    set_common_headers(msg);
    soup_server_message_set_status(msg, 200, NULL);
    soup_server_message_set_response(msg, files[i].type, SOUP_MEMORY_COPY, bytes, n);
    return;
  }
  refuse(msg, SM_LAB_ERROR_NOT_FOUND, "no page %s (the lab is at /, its API under /api/)", path);
}

/* ---- jobs ---- */

static void
job_free(Job *job)
{
  if (job->disconnected)
    g_signal_handler_disconnect(job->msg, job->disconnected);
  g_object_unref(job->msg);
  g_bytes_unref(job->body);
  if (job->answer)
    json_node_unref(job->answer);
  g_clear_error(&job->error);
  g_free(job);
}

/* On the main thread, once a job's thread is done: its answer, unless its client left. */
static gboolean
job_done(gpointer data)
{
  Job *job = data;
  SmServer *s = job->server;
  g_ptr_array_remove_fast(s->running, job);
  g_atomic_int_add(&s->pending, -1);
  if (g_atomic_int_get(&job->cancel)) {
    g_atomic_int_inc(&s->cancelled);
  } else {
    if (job->answer)
      answer_json(job->msg, 200, job->answer);
    else
      answer_error(job->msg, job->error);
    g_atomic_int_inc(&s->served);
  }
  /* unpaused either way, so libsoup finishes the message and closes what is left of it */
  soup_server_message_unpause(job->msg);
  job_free(job);
  return G_SOURCE_REMOVE;
}

static void
job_work(gpointer data, gpointer user)
{
  Job *job = data;
  SmServer *s = user;
  gsize n;
  const char *body = g_bytes_get_data(job->body, &n);
  if (g_atomic_int_get(&job->cancel))
    g_set_error_literal(&job->error, SM_LAB_ERROR, SM_LAB_ERROR_CANCELLED, "cancelled");
  else if (job->kind == JOB_RUN)
    job->answer = sm_lab_run(s->lab, body, n, &job->cancel, &job->error);
  else
    job->answer = sm_lab_sweep(s->lab, body, n, &job->cancel, &job->error);
  g_main_context_invoke(s->context, job_done, job);
}

static void
client_gone(SoupServerMessage *msg, gpointer data)
{
  Job *job = data;
  g_atomic_int_set(&job->cancel, 1);
}

/* TRUE when the peer of @msg's connection has closed it (a read would find the end). */
static gboolean
peer_closed(SoupServerMessage *msg)
{
  GSocket *socket = soup_server_message_get_socket(msg);
  if (socket == NULL)
    return TRUE;
  char c;
  ssize_t r = recv(g_socket_get_fd(socket), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Every 100 ms while jobs run: cancels those whose client has gone. */
static gboolean
watch_clients(gpointer data)
{
  SmServer *s = data;
  for (guint i = 0; i < s->running->len; i++) {
    Job *job = g_ptr_array_index(s->running, i);
    if (!g_atomic_int_get(&job->cancel) && peer_closed(job->msg))
      g_atomic_int_set(&job->cancel, 1);
  }
  return G_SOURCE_CONTINUE;
}

static void
start_job(SmServer *s, SoupServerMessage *msg, JobKind kind)
{
  if ((guint)g_atomic_int_get(&s->pending) >= s->jobs + s->queue) {
    refuse(msg, SM_LAB_ERROR_BUSY,
           "busy: %u runs going and %u waiting, the most this server takes (smsim serve --jobs, "
           "--queue); try again in a moment",
           s->jobs, s->queue);
    soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Retry-After", "2");
    return;
  }
  SoupMessageBody *body = soup_server_message_get_request_body(msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten(body);
  Job *job = g_new0(Job, 1);
  job->server = s;
  job->msg = g_object_ref(msg);
  job->kind = kind;
  job->body = g_bytes_ref(bytes);
  job->disconnected = g_signal_connect(msg, "disconnected", G_CALLBACK(client_gone), job);
  g_atomic_int_inc(&s->pending);
  g_ptr_array_add(s->running, job);
  soup_server_message_pause(msg);
  g_thread_pool_push(s->pool, job, NULL);
}

/* ---- routes ---- */

/* Before a body is read: refuses bodies beyond the bound (or of unknown length). */
static void
early_handler(SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
              gpointer data)
{
  SmServer *s = data;
  if (strcmp(soup_server_message_get_method(msg), SOUP_METHOD_POST) != 0)
    return;
  SoupMessageHeaders *h = soup_server_message_get_request_headers(msg);
  gsize max = sm_lab_limits(s->lab)->max_body_bytes;
  if (soup_message_headers_get_encoding(h) != SOUP_ENCODING_CONTENT_LENGTH) {
    refuse(msg, SM_LAB_ERROR_LENGTH, "a request body needs its Content-Length (at most %zu)", max);
  } else if ((guint64)soup_message_headers_get_content_length(h) > max) {
    refuse(msg, SM_LAB_ERROR_TOO_LARGE, "the request is %" G_GINT64_FORMAT " bytes; at most %zu",
           soup_message_headers_get_content_length(h), max);
  }
}

static void
handler(SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
        gpointer data)
{
  SmServer *s = data;
  if (soup_server_message_get_status(msg) >= 400)
    return; /* refused by the early handler */
  const char *method = soup_server_message_get_method(msg);
  gboolean get = strcmp(method, SOUP_METHOD_GET) == 0 || strcmp(method, SOUP_METHOD_HEAD) == 0;
  gboolean post = strcmp(method, SOUP_METHOD_POST) == 0;
  if (!g_str_has_prefix(path, "/api/")) {
    if (!get) {
      refuse(msg, SM_LAB_ERROR_METHOD, "%s %s: the page is read with GET", method, path);
      return;
    }
    answer_page(msg, path);
    g_atomic_int_inc(&s->served);
    return;
  }
  const char *name = path + strlen("/api/");
  static const char *const gets[] = {"gpus", "kernels", "explain", "limits"};
  static const char *const posts[] = {"run", "sweep", "gpu"};
  for (guint i = 0; i < G_N_ELEMENTS(gets); i++) {
    if (strcmp(name, gets[i]) != 0)
      continue;
    if (!get) {
      refuse(msg, SM_LAB_ERROR_METHOD, "%s %s: read it with GET", method, path);
      return;
    }
    g_autoptr(JsonNode) node = i == 0   ? sm_lab_gpus(s->lab)
                               : i == 1 ? sm_lab_kernels(s->lab)
                               : i == 2 ? sm_lab_explain(s->lab)
                                        : sm_lab_limits_json(s->lab);
    answer_json(msg, 200, node);
    g_atomic_int_inc(&s->served);
    return;
  }
  for (guint i = 0; i < G_N_ELEMENTS(posts); i++) {
    if (strcmp(name, posts[i]) != 0)
      continue;
    if (!post) {
      refuse(msg, SM_LAB_ERROR_METHOD, "%s %s: send a JSON object with POST", method, path);
      return;
    }
    if (i == 2) { /* a pasted GPU: checked at once, no simulation */
      SoupMessageBody *body = soup_server_message_get_request_body(msg);
      g_autoptr(GBytes) bytes = soup_message_body_flatten(body);
      gsize n;
      const char *text = g_bytes_get_data(bytes, &n);
      GError *error = NULL;
      g_autoptr(JsonNode) node = sm_lab_gpu(s->lab, text, n, &error);
      if (node)
        answer_json(msg, 200, node);
      else
        answer_error(msg, error);
      g_clear_error(&error);
      g_atomic_int_inc(&s->served);
      return;
    }
    start_job(s, msg, i == 0 ? JOB_RUN : JOB_SWEEP);
    return;
  }
  refuse(msg, SM_LAB_ERROR_NOT_FOUND,
         "no API %s (GET /api/gpus, /api/kernels, /api/explain, /api/limits; POST /api/run, "
         "/api/sweep, /api/gpu)",
         path);
}

SmServer *
sm_server_new(SmLab *lab, guint jobs, guint queue)
{
  SmServer *s = g_new0(SmServer, 1);
  s->lab = lab;
  s->jobs = MAX(jobs, 1u);
  s->queue = queue;
  s->context = g_main_context_ref_thread_default();
  s->running = g_ptr_array_new();
  s->pool = g_thread_pool_new(job_work, s, (gint)s->jobs, FALSE, NULL);
  s->soup = soup_server_new("server-header", "smsim-lab ", NULL);
  soup_server_add_early_handler(s->soup, NULL, early_handler, s, NULL);
  soup_server_add_handler(s->soup, NULL, handler, s, NULL);
  GSource *watch = g_timeout_source_new(100);
  g_source_set_callback(watch, watch_clients, s, NULL);
  s->watch = g_source_attach(watch, s->context);
  g_source_unref(watch);
  return s;
}

gboolean
sm_server_listen(SmServer *s, const char *address, guint port, GError **error)
{
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new_from_string(address, port);
  if (addr == NULL) {
    g_set_error(error, SM_LAB_ERROR, SM_LAB_ERROR_BAD_REQUEST,
                "serve: --bind %s: not an IPv4 or IPv6 address (127.0.0.1, 0.0.0.0, ::1)", address);
    return FALSE;
  }
  GError *local = NULL;
  if (!soup_server_listen(s->soup, addr, 0, &local)) {
    g_set_error(error, SM_LAB_ERROR, SM_LAB_ERROR_BAD_REQUEST, "serve: cannot listen on %s:%u: %s",
                address, port, local->message);
    g_error_free(local);
    return FALSE;
  }
  return TRUE;
}

char *
sm_server_uri(SmServer *s)
{
  GSList *uris = soup_server_get_uris(s->soup);
  char *text = uris ? g_uri_to_string(uris->data) : g_strdup("");
  g_slist_free_full(uris, (GDestroyNotify)g_uri_unref);
  return text;
}

guint
sm_server_served(SmServer *s)
{
  return (guint)g_atomic_int_get(&s->served);
}

guint
sm_server_pending(SmServer *s)
{
  return (guint)g_atomic_int_get(&s->pending);
}

guint
sm_server_cancelled(SmServer *s)
{
  return (guint)g_atomic_int_get(&s->cancelled);
}

void
sm_server_free(SmServer *s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < s->running->len; i++)
    g_atomic_int_set(&((Job *)g_ptr_array_index(s->running, i))->cancel, 1);
  g_thread_pool_free(s->pool, FALSE, TRUE);
  /* the jobs' answers wait on this context: take them (they free themselves) */
  while (s->running->len > 0)
    g_main_context_iteration(s->context, TRUE);
  GSource *watch = g_main_context_find_source_by_id(s->context, s->watch);
  if (watch)
    g_source_destroy(watch);
  soup_server_disconnect(s->soup);
  g_object_unref(s->soup);
  g_ptr_array_unref(s->running);
  g_main_context_unref(s->context);
  g_free(s);
}
