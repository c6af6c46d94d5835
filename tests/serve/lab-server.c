/* A lab server on its own thread (lab-server.h). */
#include "lab-server.h"

#include "../../sim/study/plot.h"

struct LabServer {
  GThread *thread;
  GMainContext *context;
  GMainLoop *loop;
  SmServer *server;
  SmLab *lab;
  SmLabLimits limits;
  guint jobs, queue, port;
  char *url;
  GMutex lock;
  GCond ready;
  gboolean started;
};

static gpointer
serve(gpointer data)
{
  LabServer *s = data;
  g_main_context_push_thread_default(s->context);
  GError *error = NULL;
  s->lab = sm_lab_new(&s->limits, &error);
  g_assert_no_error(error);
  s->server = sm_server_new(s->lab, s->jobs, s->queue);
  if (!sm_server_listen(s->server, "127.0.0.1", 0, &error))
    g_error("%s", error->message);
  g_autofree char *uri = sm_server_uri(s->server);
  g_autoptr(GUri) parsed = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
  g_mutex_lock(&s->lock);
  s->port = (guint)g_uri_get_port(parsed);
  s->url = g_strdup_printf("http://127.0.0.1:%u", s->port);
  s->started = TRUE;
  g_cond_signal(&s->ready);
  g_mutex_unlock(&s->lock);
  g_main_loop_run(s->loop);
  g_clear_pointer(&s->server, sm_server_free);
  g_clear_pointer(&s->lab, sm_lab_free);
  g_main_context_pop_thread_default(s->context);
  return NULL;
}

LabServer *
lab_server_start(const SmLabLimits *limits, guint jobs, guint queue)
{
  /* the source tree's presets and kernels, whatever folder the test runs in */
  g_autofree char *path = g_strdup_printf("%s/config:%s/isa", SMSIM_SOURCE_DIR, SMSIM_SOURCE_DIR);
  g_setenv("SMSIM_PATH", path, TRUE);
  LabServer *s = g_new0(LabServer, 1);
  s->limits = limits ? *limits
                     : (SmLabLimits){.max_cycles = SM_LAB_DEFAULT_MAX_CYCLES,
                                     .max_seconds = SM_LAB_DEFAULT_MAX_SECONDS,
                                     .max_body_bytes = SM_LAB_DEFAULT_MAX_BODY,
                                     .max_yaml_bytes = SM_LAB_DEFAULT_MAX_YAML,
                                     .max_sweep_points = SM_LAB_DEFAULT_MAX_POINTS};
  s->jobs = jobs;
  s->queue = queue;
  s->context = g_main_context_new();
  s->loop = g_main_loop_new(s->context, FALSE);
  g_mutex_init(&s->lock);
  g_cond_init(&s->ready);
  s->thread = g_thread_new("lab-server", serve, s);
  g_mutex_lock(&s->lock);
  while (!s->started)
    g_cond_wait(&s->ready, &s->lock);
  g_mutex_unlock(&s->lock);
  return s;
}

static gboolean
quit(gpointer data)
{
  g_main_loop_quit(data);
  return G_SOURCE_REMOVE;
}

void
lab_server_stop(LabServer *s)
{
  g_main_context_invoke(s->context, quit, s->loop);
  g_thread_join(s->thread);
  g_main_loop_unref(s->loop);
  g_main_context_unref(s->context);
  g_mutex_clear(&s->lock);
  g_cond_clear(&s->ready);
  g_free(s->url);
  g_free(s);
  sm_plot_shutdown(); /* cairo's and fontconfig's caches, which pictures fill */
}

const char *
lab_server_url(LabServer *s)
{
  return s->url;
}

guint
lab_server_port(LabServer *s)
{
  return s->port;
}

SmServer *
lab_server_server(LabServer *s)
{
  return s->server;
}
