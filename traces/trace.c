/* The trace interface: opening a sink by file extension, time-ordering records, size limits and
 * the temporary file.  Not a format (text.c, vcd.c, perfetto.c, csv.c). */
#include "trace.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK(smsim - trace - error - quark, trace_error)

const char *const trace_counter_names[TRACE_COUNTER_COUNT] = {"mem_outstanding", "mem_queued",
                                                              "mem_bytes"};

/* The writer for @path's extension; NULL with an error for none. */
static const TraceSinkClass *
sink_class(const char *path, GError **error)
{
  const TraceSinkClass *klass = NULL;
  if (g_str_has_suffix(path, ".txt"))
    klass = &trace_text_class;
  else if (g_str_has_suffix(path, ".vcd"))
    klass = &trace_vcd_class;
  else if (g_str_has_suffix(path, ".json"))
    klass = &trace_json_class;
  else if (g_str_has_suffix(path, ".states.csv"))
    klass = &trace_csv_states_class;
  else if (g_str_has_suffix(path, ".csv"))
    klass = &trace_csv_class;
  else if (g_str_has_suffix(path, ".png") || g_str_has_suffix(path, ".svg"))
    klass = &trace_picture_class;
  if (klass == NULL)
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_ARGS,
                "--trace %s: the file name must end in .txt, .vcd, .json, .csv, .png or .svg",
                path);
  return klass;
}

static TraceSink *
sink_new(const TraceSinkClass *klass, const char *path, const TraceOptions *opts)
{
  TraceSink *sink = g_malloc0(klass->instance_size);
  sink->klass = klass;
  sink->opts = *opts;
  if (opts->warps)
    sink->opts.warps = g_memdup2(opts->warps, opts->n_warp_mask);
  sink->path = g_strdup(path);
  return sink;
}

TraceSink *
trace_sink_open(const char *path, const TraceOptions *opts, GError **error)
{
  const TraceSinkClass *klass = sink_class(path, error);
  if (klass == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *base = g_path_get_basename(path);
  char *tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
  int fd = g_mkstemp(tmp);
  if (fd < 0) {
    int e = errno;
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_IO, "%s: cannot write: %s", path, g_strerror(e));
    g_free(tmp);
    return NULL;
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  TraceSink *sink = sink_new(klass, path, opts);
  sink->tmp_path = tmp;
  sink->out = fdopen(fd, "w");
  return sink;
}

TraceSink *
trace_sink_open_memory(const char *name, const TraceOptions *opts, GError **error)
{
  const TraceSinkClass *klass = sink_class(name, error);
  if (klass == NULL)
    return NULL;
  TraceSink *sink = sink_new(klass, name, opts);
  sink->out = open_memstream(&sink->memory, &sink->memory_size);
  if (sink->out == NULL) {
    int e = errno;
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_IO, "%s: cannot write: %s", name, g_strerror(e));
    trace_sink_free(sink);
    return NULL;
  }
  return sink;
}

GBytes *
trace_sink_take_memory(TraceSink *sink)
{
  g_return_val_if_fail(sink->out == NULL && sink->tmp_path == NULL && !sink->failed, NULL);
  GBytes *bytes = g_bytes_new_take(g_steal_pointer(&sink->memory), sink->memory_size);
  sink->memory_size = 0;
  return bytes;
}

void
trace_printf(TraceSink *sink, const char *fmt, ...)
{
  if (sink->failed)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vfprintf(sink->out, fmt, ap);
  va_end(ap);
  if (n < 0) {
    int e = errno;
    sink->failed = TRUE;
    g_set_error(&sink->error, TRACE_ERROR, TRACE_ERROR_IO, "%s: cannot write: %s", sink->path,
                g_strerror(e));
    return;
  }
  sink->bytes += (guint64)n;
  if (sink->bytes > sink->opts.max_bytes) {
    sink->failed = TRUE;
    g_set_error(&sink->error, TRACE_ERROR, TRACE_ERROR_LIMIT,
                "%s: the trace would be larger than %" G_GUINT64_FORMAT
                " MB; stopped (narrow it with --trace-window or --trace-warps, or raise "
                "--trace-limit-mb)",
                sink->path, sink->opts.max_bytes >> 20);
  }
}

void
trace_warp_states_init(TraceWarpStates *s, const TraceInfo *info, guint64 from)
{
  guint n = MAX(info->n_warps, 1u);
  s->state = g_new(guint, n);
  s->since = g_new(guint64, n);
  for (guint w = 0; w < n; w++) {
    s->state[w] = info->warp_state && w < info->n_warps ? info->warp_state[w] : G_MAXUINT;
    s->since[w] = from;
  }
}

void
trace_warp_states_clear(TraceWarpStates *s)
{
  g_clear_pointer(&s->state, g_free);
  g_clear_pointer(&s->since, g_free);
}

gboolean
trace_state_is_a_warps(const TraceInfo *info, guint st)
{
  return st < info->n_states && strcmp(info->state_names[st], "inactive") != 0;
}

gboolean
trace_wants_warp(const TraceSink *sink, guint warp)
{
  if (sink->info.warp_exists && !sink->info.warp_exists[warp])
    return FALSE;
  if (sink->opts.warps == NULL)
    return TRUE;
  return warp < sink->opts.n_warp_mask && sink->opts.warps[warp];
}

gboolean
trace_in_window(const TraceSink *sink, guint64 cycle)
{
  return cycle >= sink->opts.from && cycle < sink->opts.to;
}

gboolean
trace_sink_finish(TraceSink *sink, guint64 cycles, GError **error)
{
  if (!sink->failed && !sink->klass->end(sink, cycles, &sink->error))
    sink->failed = TRUE;
  if (fclose(sink->out) != 0 && !sink->failed) {
    int e = errno;
    sink->failed = TRUE;
    g_set_error(&sink->error, TRACE_ERROR, TRACE_ERROR_IO, "%s: cannot write: %s", sink->path,
                g_strerror(e));
  }
  sink->out = NULL;
  if (!sink->failed && sink->tmp_path && g_rename(sink->tmp_path, sink->path) != 0) {
    int e = errno;
    sink->failed = TRUE;
    g_set_error(&sink->error, TRACE_ERROR, TRACE_ERROR_IO, "%s: cannot write: %s", sink->path,
                g_strerror(e));
  }
  if (sink->failed) {
    if (sink->tmp_path)
      g_unlink(sink->tmp_path);
    g_propagate_error(error, g_steal_pointer(&sink->error));
    return FALSE;
  }
  return TRUE;
}

void
trace_sink_free(TraceSink *sink)
{
  if (sink == NULL)
    return;
  if (sink->out) {
    fclose(sink->out);
    if (sink->tmp_path)
      g_unlink(sink->tmp_path);
  }
  free(sink->memory); /* open_memstream's buffer */
  if (sink->klass->free)
    sink->klass->free(sink);
  g_clear_error(&sink->error);
  g_free(sink->opts.warps);
  g_free(sink->path);
  g_free(sink->tmp_path);
  g_free(sink);
}

static gboolean
parse_u64(const char *s, guint64 *out)
{
  char *end;
  if (!g_ascii_isdigit(s[0]))
    return FALSE;
  *out = g_ascii_strtoull(s, &end, 10);
  return *end == '\0';
}

gboolean
trace_parse_window(const char *text, TraceOptions *opts, GError **error)
{
  g_auto(GStrv) p = g_strsplit(text, ":", -1);
  guint64 a, b;
  if (g_strv_length(p) != 2 || !parse_u64(p[0], &a) || !parse_u64(p[1], &b) || b <= a) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_ARGS,
                "--trace-window %s: expected A:B, whole cycles with A < B", text);
    return FALSE;
  }
  opts->from = a;
  opts->to = b;
  opts->has_window = TRUE;
  return TRUE;
}

gboolean
trace_parse_scale(const char *text, TraceOptions *opts, GError **error)
{
  guint64 n;
  if (!parse_u64(text, &n) || n < 1 || n > (1ull << 40)) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_ARGS,
                "--trace-scale %s: expected a whole number of cycles a column, at least 1", text);
    return FALSE;
  }
  opts->scale = n;
  return TRUE;
}

gboolean
trace_parse_warps(const char *text, TraceOptions *opts, GError **error)
{
  g_auto(GStrv) items = g_strsplit(text, ",", -1);
  GArray *mask = g_array_new(FALSE, TRUE, 1);
  for (guint i = 0; items[i]; i++) {
    g_auto(GStrv) r = g_strsplit(items[i], "-", -1);
    guint64 a, b;
    gboolean ok = (g_strv_length(r) == 1 && parse_u64(r[0], &a) && (b = a, TRUE)) ||
                  (g_strv_length(r) == 2 && parse_u64(r[0], &a) && parse_u64(r[1], &b) && a <= b);
    if (!ok || b >= 4096) {
      g_set_error(error, TRACE_ERROR, TRACE_ERROR_ARGS,
                  "--trace-warps %s: expected warp numbers and ranges such as 0,2,4-7 (below 4096)",
                  text);
      g_array_free(mask, TRUE);
      return FALSE;
    }
    if (mask->len <= b)
      g_array_set_size(mask, (guint)b + 1);
    for (guint64 w = a; w <= b; w++)
      mask->data[w] = 1;
  }
  g_free(opts->warps);
  opts->n_warp_mask = mask->len;
  opts->warps = (guint8 *)g_array_free(mask, FALSE);
  return TRUE;
}

void
trace_options_clear(TraceOptions *opts)
{
  g_clear_pointer(&opts->warps, g_free);
}

/* ---- pending changes ---- */

static gboolean
change_before(const TraceChange *a, const TraceChange *b)
{
  return a->cycle != b->cycle ? a->cycle < b->cycle : a->seq < b->seq;
}

void
trace_queue_init(TraceQueue *q)
{
  q->heap = g_array_new(FALSE, FALSE, sizeof(TraceChange));
  q->seq = 0;
}

void
trace_queue_clear(TraceQueue *q)
{
  if (q->heap)
    g_array_free(q->heap, TRUE);
  q->heap = NULL;
}

void
trace_queue_push(TraceQueue *q, guint64 cycle, guint kind, guint index, gint64 value)
{
  TraceChange c = {.cycle = cycle, .seq = q->seq++, .kind = kind, .index = index, .value = value};
  g_array_append_val(q->heap, c);
  TraceChange *h = (TraceChange *)q->heap->data;
  guint i = q->heap->len - 1;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!change_before(&h[i], &h[parent]))
      break;
    TraceChange t = h[i];
    h[i] = h[parent];
    h[parent] = t;
    i = parent;
  }
}

gboolean
trace_queue_pop(TraceQueue *q, guint64 before, TraceChange *out)
{
  if (q->heap->len == 0)
    return FALSE;
  TraceChange *h = (TraceChange *)q->heap->data;
  if (h[0].cycle >= before)
    return FALSE;
  *out = h[0];
  guint n = q->heap->len - 1;
  h[0] = h[n];
  g_array_set_size(q->heap, n);
  guint i = 0;
  for (;;) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && change_before(&h[c + 1], &h[c]))
      c++;
    if (!change_before(&h[c], &h[i]))
      break;
    TraceChange t = h[i];
    h[i] = h[c];
    h[c] = t;
    i = c;
  }
  return TRUE;
}
