/* libyaml events to a CfgNode tree with file:line:col on every node, lookups and --set edits,
 * and the comments beside keys.  Not the typed field readers (fields.c), nor what any key means
 * (gpu.c, kernel.c). */
#include "load.h"

#include <errno.h>
#include <string.h>
#include <yaml.h>

G_DEFINE_QUARK(smsim - config - error - quark, cfg_error)

struct CfgSource {
  int refcount;
  char *name;
  char **lines; /* raw lines of the file, to locate text inside block scalars */
};

static CfgSource *
source_ref(CfgSource *s)
{
  if (s)
    s->refcount++;
  return s;
}

static void
source_unref(CfgSource *s)
{
  if (s && --s->refcount == 0) {
    g_free(s->name);
    g_strfreev(s->lines);
    g_free(s);
  }
}

static CfgNode *
node_new(CfgNodeKind kind, CfgSource *source, guint line, guint col)
{
  CfgNode *n = g_new0(CfgNode, 1);
  n->kind = kind;
  n->source = source_ref(source);
  n->line = line;
  n->col = col;
  if (kind != CFG_NODE_SCALAR)
    n->items = g_ptr_array_new_with_free_func((GDestroyNotify)cfg_node_free);
  if (kind == CFG_NODE_MAP)
    n->keys = g_ptr_array_new_with_free_func((GDestroyNotify)cfg_node_free);
  return n;
}

void
cfg_node_free(CfgNode *node)
{
  if (node == NULL)
    return;
  source_unref(node->source);
  g_free(node->set_key);
  g_free(node->value);
  if (node->keys)
    g_ptr_array_free(node->keys, TRUE);
  if (node->items)
    g_ptr_array_free(node->items, TRUE);
  g_free(node);
}

const char *
cfg_node_file(const CfgNode *node)
{
  return node->source ? node->source->name : NULL;
}

char *
cfg_node_where(const CfgNode *node)
{
  if (node->set_key)
    return g_strdup(node->set_key);
  return g_strdup_printf("%s:%u:%u", node->source ? node->source->name : "?", node->line,
                         node->col);
}

char *
cfg_node_where_in_text(const CfgNode *node, guint line, guint col)
{
  if (node->set_key || node->source == NULL)
    return cfg_node_where(node);
  if (!node->literal)
    return g_strdup_printf("%s:%u:%u", node->source->name, node->line,
                           line == 1 ? node->col + col : col);
  /* A block scalar's text starts on the line after the indicator, with its indentation
   * removed: find that indentation in the raw file. */
  guint file_line = node->line + line;
  guint indent = 0;
  if (file_line - 1 < g_strv_length(node->source->lines)) {
    /* the block's indentation: the raw line's leading spaces less the text line's */
    const char *raw = node->source->lines[file_line - 1];
    while (raw[indent] == ' ')
      indent++;
    g_auto(GStrv) text_lines = g_strsplit(node->value, "\n", -1);
    if (line - 1 < g_strv_length(text_lines)) {
      guint own = 0;
      while (text_lines[line - 1][own] == ' ')
        own++;
      indent = indent >= own ? indent - own : 0;
    }
  }
  return g_strdup_printf("%s:%u:%u", node->source->name, file_line, indent + col);
}

gboolean
cfg_fail(GError **error, const CfgNode *at, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *where = cfg_node_where(at);
  g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: %s", where, msg);
  g_free(where);
  g_free(msg);
  return FALSE;
}

/* ---- parsing ---- */

typedef struct {
  yaml_parser_t parser;
  CfgSource *source;
  GError **error;
  guint depth; /* collections open */
} Loader;

/* Collections nested deeper than this are refused: no file needs more than a few levels, and
 * each level is a frame of the loader's recursion (a pasted "[[[[..." must not exhaust the
 * stack). */
#define MAX_DEPTH 64

static gboolean
loader_fail_mark(Loader *l, yaml_mark_t mark, const char *msg)
{
  g_set_error(l->error, CFG_ERROR, CFG_ERROR_SYNTAX, "%s:%zu:%zu: %s", l->source->name,
              mark.line + 1, mark.column + 1, msg);
  return FALSE;
}

/* What a parser's problem at @mark most likely means, in words a YAML newcomer reads (NULL: its
 * own words are the best): tabs, and indentation that lines up with nothing. */
static const char *
yaml_hint(const Loader *l, yaml_mark_t mark, const char *problem)
{
  char **lines = l->source->lines;
  if (lines && mark.line < g_strv_length(lines)) {
    const char *line = lines[mark.line];
    gsize lead = strspn(line, " \t");
    if (memchr(line, '\t', lead) || strstr(problem, "tab"))
      return "a tab in the indentation: YAML indents with spaces only (replace the tab with "
             "spaces)";
  }
  if (strstr(problem, "mapping values are not allowed"))
    return "a 'key:' where none can start: the line is indented deeper than the keys above it "
           "(a key's own keys go on the lines below it, each indented alike), or a value holding "
           "': ' needs quotes";
  if (strstr(problem, "did not find expected key"))
    return "this line's indentation lines up with none above it: the keys of one section start "
           "in the same column";
  if (strstr(problem, "did not find expected '-' indicator"))
    return "this line's indentation lines up with none above it: the items of one list start "
           "with '-' in the same column";
  return NULL;
}

static gboolean
next_event(Loader *l, yaml_event_t *ev)
{
  if (yaml_parser_parse(&l->parser, ev))
    return TRUE;
  const char *problem = l->parser.problem ? l->parser.problem : "invalid YAML";
  char *raw =
      l->parser.context ? g_strdup_printf("%s %s", problem, l->parser.context) : g_strdup(problem);
  const char *hint = yaml_hint(l, l->parser.problem_mark, raw);
  char *msg = hint ? g_strdup_printf("%s (YAML: %s)", hint, raw) : g_strdup(raw);
  loader_fail_mark(l, l->parser.problem_mark, msg);
  g_free(msg);
  g_free(raw);
  return FALSE;
}

static CfgNode *load_node(Loader *l, yaml_event_t *ev);

static CfgNode *
load_collection(Loader *l, yaml_event_t *start, gboolean is_map)
{
  if (l->depth >= MAX_DEPTH) {
    loader_fail_mark(l, start->start_mark, "nested deeper than 64 levels");
    return NULL;
  }
  l->depth++;
  CfgNode *node = node_new(is_map ? CFG_NODE_MAP : CFG_NODE_SEQ, l->source,
                           (guint)start->start_mark.line + 1, (guint)start->start_mark.column + 1);
  yaml_event_type_t end_type = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
  for (;;) {
    yaml_event_t ev;
    if (!next_event(l, &ev))
      goto fail;
    if (ev.type == end_type) {
      yaml_event_delete(&ev);
      l->depth--;
      return node;
    }
    if (is_map) {
      if (ev.type != YAML_SCALAR_EVENT) {
        loader_fail_mark(l, ev.start_mark, "keys must be plain words");
        yaml_event_delete(&ev);
        goto fail;
      }
      CfgNode *key = load_node(l, &ev);
      yaml_event_delete(&ev);
      if (key == NULL)
        goto fail;
      if (cfg_node_get(node, key->value) != NULL) {
        cfg_fail(l->error, key, "duplicate key '%s'", key->value);
        cfg_node_free(key);
        goto fail;
      }
      yaml_event_t vev;
      if (!next_event(l, &vev)) {
        cfg_node_free(key);
        goto fail;
      }
      CfgNode *value = load_node(l, &vev);
      yaml_event_delete(&vev);
      if (value == NULL) {
        cfg_node_free(key);
        goto fail;
      }
      g_ptr_array_add(node->keys, key);
      g_ptr_array_add(node->items, value);
    } else {
      CfgNode *item = load_node(l, &ev);
      yaml_event_delete(&ev);
      if (item == NULL)
        goto fail;
      g_ptr_array_add(node->items, item);
    }
  }
fail:
  l->depth--;
  cfg_node_free(node);
  return NULL;
}

static CfgNode *
load_node(Loader *l, yaml_event_t *ev)
{
  switch (ev->type) {
  case YAML_SCALAR_EVENT: {
    CfgNode *n = node_new(CFG_NODE_SCALAR, l->source, (guint)ev->start_mark.line + 1,
                          (guint)ev->start_mark.column + 1);
    n->value = g_strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
    n->literal = ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
                 ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
    return n;
  }
  case YAML_MAPPING_START_EVENT:
    return load_collection(l, ev, TRUE);
  case YAML_SEQUENCE_START_EVENT:
    return load_collection(l, ev, FALSE);
  case YAML_ALIAS_EVENT:
    loader_fail_mark(l, ev->start_mark, "YAML aliases are not supported");
    return NULL;
  default:
    loader_fail_mark(l, ev->start_mark, "unexpected YAML structure");
    return NULL;
  }
}

CfgNode *
cfg_load_string(const char *name, const char *text, GError **error)
{
  Loader l = {0};
  l.error = error;
  l.source = g_new0(CfgSource, 1);
  l.source->refcount = 1;
  l.source->name = g_strdup(name);
  l.source->lines = g_strsplit(text, "\n", -1);
  yaml_parser_initialize(&l.parser);
  yaml_parser_set_input_string(&l.parser, (const unsigned char *)text, strlen(text));

  CfgNode *root = NULL;
  gboolean in_document = FALSE, done = FALSE;
  while (!done) {
    yaml_event_t ev;
    if (!next_event(&l, &ev))
      goto fail;
    switch (ev.type) {
    case YAML_STREAM_START_EVENT:
      break;
    case YAML_DOCUMENT_START_EVENT:
      if (root != NULL) {
        loader_fail_mark(&l, ev.start_mark, "only one YAML document per file is allowed");
        yaml_event_delete(&ev);
        goto fail;
      }
      in_document = TRUE;
      break;
    case YAML_DOCUMENT_END_EVENT:
      in_document = FALSE;
      break;
    case YAML_STREAM_END_EVENT:
      done = TRUE;
      if (root == NULL) {
        loader_fail_mark(&l, ev.start_mark, "the file is empty");
        yaml_event_delete(&ev);
        goto fail;
      }
      break;
    default:
      if (!in_document || root != NULL) {
        loader_fail_mark(&l, ev.start_mark, "unexpected YAML structure");
        yaml_event_delete(&ev);
        goto fail;
      }
      root = load_node(&l, &ev);
      if (root == NULL) {
        yaml_event_delete(&ev);
        goto fail;
      }
      if (root->kind != CFG_NODE_MAP) {
        cfg_fail(error, root, "the top level must be a mapping of keys to values");
        yaml_event_delete(&ev);
        goto fail;
      }
      break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&l.parser);
  source_unref(l.source);
  return root;
fail:
  cfg_node_free(root);
  yaml_parser_delete(&l.parser);
  source_unref(l.source);
  return NULL;
}

gboolean
cfg_read_text(const char *path, char **text, GError **error)
{
  gsize len = 0;
  GError *local = NULL;
  if (!g_file_get_contents(path, text, &len, &local)) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_IO, "%s: cannot read: %s", path,
                g_strerror(local->code == G_FILE_ERROR_NOENT   ? ENOENT
                           : local->code == G_FILE_ERROR_ACCES ? EACCES
                           : local->code == G_FILE_ERROR_ISDIR ? EISDIR
                                                               : EIO));
    g_error_free(local);
    return FALSE;
  }
  if (memchr(*text, '\0', len) != NULL || !g_utf8_validate(*text, (gssize)len, NULL)) {
    g_clear_pointer(text, g_free);
    g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX, "%s:1:1: not a UTF-8 text file", path);
    return FALSE;
  }
  return TRUE;
}

CfgNode *
cfg_load_file(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!cfg_read_text(path, &text, error))
    return NULL;
  return cfg_load_string(path, text, error);
}

/* ---- lookup and --set ---- */

static gint
map_index(const CfgNode *map, const char *key)
{
  if (map == NULL || map->kind != CFG_NODE_MAP)
    return -1;
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *k = g_ptr_array_index(map->keys, i);
    if (strcmp(k->value, key) == 0)
      return (gint)i;
  }
  return -1;
}

CfgNode *
cfg_node_get(const CfgNode *map, const char *key)
{
  gint i = map_index(map, key);
  return i < 0 ? NULL : g_ptr_array_index(map->items, (guint)i);
}

CfgNode *
cfg_node_key(const CfgNode *map, const char *key)
{
  gint i = map_index(map, key);
  return i < 0 ? NULL : g_ptr_array_index(map->keys, (guint)i);
}

static CfgNode *
set_node(CfgNodeKind kind, const char *origin, const char *path)
{
  CfgNode *n = node_new(kind, NULL, 0, 0);
  n->set_key = g_strdup_printf("%s %s", origin, path);
  return n;
}

/* Every node of @n's tree is reported as made by @set_key (no file position). */
static void
mark_set(CfgNode *n, const char *set_key)
{
  g_free(n->set_key);
  n->set_key = g_strdup(set_key);
  for (guint i = 0; n->keys && i < n->keys->len; i++)
    mark_set(g_ptr_array_index(n->keys, i), set_key);
  for (guint i = 0; n->items && i < n->items->len; i++)
    mark_set(g_ptr_array_index(n->items, i), set_key);
}

/* The node a --set value makes: a scalar, or for "[...]" a list in YAML's flow style (items
 * may be lists themselves: latency_histogram=[[515, 433], [535, 7641]]). */
static CfgNode *
set_value(const char *value, const char *origin, const char *path, GError **error)
{
  g_autofree char *set_key = g_strdup_printf("%s %s", origin, path);
  if (value[0] != '[') {
    CfgNode *leaf = set_node(CFG_NODE_SCALAR, origin, path);
    leaf->value = g_strdup(value);
    return leaf;
  }
  /* parsed as the value of a one-key mapping (the loader's documents are mappings) */
  g_autofree char *text = g_strdup_printf("v: %s\n", value);
  GError *local = NULL;
  CfgNode *doc = cfg_load_string(set_key, text, &local);
  CfgNode *list = doc ? cfg_node_get(doc, "v") : NULL;
  if (list == NULL || list->kind != CFG_NODE_SEQ || doc->keys->len != 1) {
    /* the loader's message without its position inside the made-up document */
    const char *why = local ? local->message : "not a list";
    const char *after = local ? strstr(why, ": ") : NULL;
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%s: '%s' is not a list of values, e.g. [1, 2] (%s)", set_key, value,
                after ? after + 2 : why);
    g_clear_error(&local);
    cfg_node_free(doc);
    return NULL;
  }
  g_ptr_array_steal_index(doc->items, 0); /* the list outlives its document */
  cfg_node_free(doc);
  mark_set(list, set_key);
  return list;
}

gboolean
cfg_node_set_path(CfgNode *root, const char *path, const char *value, const char *origin,
                  GError **error)
{
  g_auto(GStrv) parts = g_strsplit(path, ".", -1);
  guint n = g_strv_length(parts);
  for (guint i = 0; i < n; i++) {
    if (parts[i][0] == '\0') {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s %s: empty key in the path", origin,
                  path);
      return FALSE;
    }
  }
  CfgNode *map = root;
  for (guint i = 0; i + 1 < n; i++) {
    /* a section whose name has a dot in it (sass.ops' IMAD.WIDE) is found whole */
    g_autofree char *joined = i + 2 < n ? g_strconcat(parts[i], ".", parts[i + 1], NULL) : NULL;
    CfgNode *whole = joined ? cfg_node_get(map, joined) : NULL;
    if (whole && whole->kind == CFG_NODE_MAP) {
      map = whole;
      i++;
      continue;
    }
    CfgNode *child = cfg_node_get(map, parts[i]);
    if (child == NULL) {
      child = set_node(CFG_NODE_MAP, origin, path);
      g_ptr_array_add(map->keys, set_node(CFG_NODE_SCALAR, origin, path));
      ((CfgNode *)g_ptr_array_index(map->keys, map->keys->len - 1))->value = g_strdup(parts[i]);
      g_ptr_array_add(map->items, child);
    } else if (child->kind != CFG_NODE_MAP) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s %s: '%s' is a value, not a section",
                  origin, path, parts[i]);
      return FALSE;
    }
    map = child;
  }
  CfgNode *leaf = set_value(value, origin, path, error);
  if (leaf == NULL)
    return FALSE;
  gint i = map_index(map, parts[n - 1]);
  if (i >= 0) {
    CfgNode *old = g_ptr_array_index(map->items, (guint)i);
    if (old->kind == CFG_NODE_SEQ && leaf->kind != CFG_NODE_SEQ) {
      cfg_node_free(leaf);
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "%s %s: '%s' is a list: give one, e.g. %s=[1, 2]", origin, path, parts[n - 1],
                  path);
      return FALSE;
    }
    if (old->kind == CFG_NODE_MAP) {
      cfg_node_free(leaf);
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "%s %s: '%s' is a section, set one of its keys instead", origin, path,
                  parts[n - 1]);
      return FALSE;
    }
    cfg_node_free(old);
    map->items->pdata[i] = leaf;
  } else {
    CfgNode *key = set_node(CFG_NODE_SCALAR, origin, path);
    key->value = g_strdup(parts[n - 1]);
    g_ptr_array_add(map->keys, key);
    g_ptr_array_add(map->items, leaf);
  }
  return TRUE;
}

gboolean
cfg_fail_at(GError **error, const char *path, guint line, guint col, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s:%u:%u: %s", path, line, col, msg);
  return FALSE;
}

/* The text of a comment that starts after column @from of @line ("  # a b" -> "a b"), or NULL:
 * a '#' outside quotes, after a blank or at the line's start. */
static const char *
comment_in(const char *line, gsize from)
{
  char quote = 0;
  for (gsize i = from; line[i]; i++) {
    char c = line[i];
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      const char *t = line + i + 1;
      while (*t == ' ')
        t++;
      return t;
    }
  }
  return NULL;
}

char *
cfg_node_comment(const CfgNode *key)
{
  if (key->source == NULL || key->line == 0)
    return NULL;
  char **lines = key->source->lines;
  guint n = g_strv_length(lines);
  if (key->line > n)
    return NULL;
  const char *c = comment_in(lines[key->line - 1], key->col ? key->col - 1 : 0);
  if (c == NULL)
    return NULL;
  g_autofree char *first = g_strchomp(g_strdup(c));
  GString *out = g_string_new(first);
  /* lines below holding only a comment, indented deeper than the key, continue it */
  for (guint l = key->line; l < n; l++) {
    const char *s = lines[l];
    gsize indent = 0;
    while (s[indent] == ' ')
      indent++;
    if (s[indent] != '#' || indent < key->col)
      break;
    const char *more = s + indent + 1;
    while (*more == ' ')
      more++;
    g_autofree char *text = g_strchomp(g_strdup(more));
    g_string_append_printf(out, " %s", text);
  }
  return g_string_free(out, FALSE);
}
