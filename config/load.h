/* YAML documents as a small tree of nodes that remember where they came from; not what the
 * keys mean (gpu.h, kernel.h).
 *
 * This is the only place in smsim that includes <yaml.h>.  Every error about a node is
 * reported as "file:line:col: message" (or "--set key: message" for command-line values),
 * in the GError domain CFG_ERROR.
 */
#pragma once

#include <glib.h>

#define CFG_ERROR (cfg_error_quark())
GQuark cfg_error_quark(void);

typedef enum {
  CFG_ERROR_IO,         /* file cannot be read */
  CFG_ERROR_SYNTAX,     /* not YAML, or YAML smsim does not accept (aliases, several documents) */
  CFG_ERROR_INVALID,    /* unknown key, wrong type, value out of range */
  CFG_ERROR_LIMIT,      /* a run reached its cycle limit (not bad input: exit status 1) */
  CFG_ERROR_IMPOSSIBLE, /* a launch this GPU cannot hold (warps, blocks, registers, shared
                           memory): bad input, but a sweep passes over such points */
} CfgErrorCode;

typedef enum { CFG_NODE_SCALAR, CFG_NODE_MAP, CFG_NODE_SEQ } CfgNodeKind;

typedef struct CfgSource CfgSource;
typedef struct CfgNode CfgNode;

struct CfgNode {
  CfgNodeKind kind;
  CfgSource *source; /* shared, reference counted; NULL for nodes made by --set */
  char *set_key;     /* for nodes made by --set: "--set KEY" as the user typed it */
  guint line, col;   /* 1-based position in the source */
  char *value;       /* scalars: the text */
  gboolean literal;  /* scalars: written as a block scalar ("|") */
  GPtrArray *keys;   /* maps: scalar key nodes, in file order */
  GPtrArray *items;  /* maps: values (parallel to keys); sequences: items */
};

/* What a root looks like: a kernel file (it has stream, function or params and no GPU section)
 * or a GPU file (schedulers, units or memory, and none of the kernel's). */
gboolean cfg_is_kernel_file(const CfgNode *root);
gboolean cfg_is_gpu_file(const CfgNode *root);

/* The comment written after @key on its line, with the comment-only lines below it that are
 * indented deeper (joined by blanks), or NULL: a parameter's meaning (smsim describe). */
char *cfg_node_comment(const CfgNode *key);

/* Reads a text file; errors as "path: cannot read: ..." or "path:1:1: not a UTF-8 text file". */
gboolean cfg_read_text(const char *path, char **text, GError **error);
/* Loads one YAML document whose root must be a mapping. */
CfgNode *cfg_load_file(const char *path, GError **error);
CfgNode *cfg_load_string(const char *name, const char *text, GError **error);
void cfg_node_free(CfgNode *node);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgNode, cfg_node_free)

/* Value of @key in map @map, or NULL. */
CfgNode *cfg_node_get(const CfgNode *map, const char *key);
/* The key node for @key in @map (for messages about the key itself), or NULL. */
CfgNode *cfg_node_key(const CfgNode *map, const char *key);

/* Sets dotted @path (e.g. "memory.dram.latency_cycles") to scalar @value, creating maps as
 * needed.  The new nodes report their position as "@origin PATH" (origin: "--set"). */
gboolean cfg_node_set_path(CfgNode *root, const char *path, const char *value, const char *origin,
                           GError **error);

/* The file @node was read from (NULL for a node made by --set). */
const char *cfg_node_file(const CfgNode *node);
/* "file:line:col" or "--set key" */
char *cfg_node_where(const CfgNode *node);
/* Position of (line, col) inside a scalar's text, e.g. a stream in a block scalar. */
char *cfg_node_where_in_text(const CfgNode *node, guint line, guint col);

gboolean cfg_fail(GError **error, const CfgNode *at, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* Sets "PATH:LINE:COL: message" (a place in a text file that is not YAML, e.g. a CSV) and
 * returns FALSE. */
gboolean cfg_fail_at(GError **error, const char *path, guint line, guint col, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

/* ---- typed access driven by field tables ---- */

typedef enum {
  CFG_FIELD_UINT,    /* guint */
  CFG_FIELD_UINT64,  /* guint64 */
  CFG_FIELD_DOUBLE,  /* double */
  CFG_FIELD_BOOL,    /* gboolean */
  CFG_FIELD_ENUM,    /* int, index into names */
  CFG_FIELD_STRING,  /* char *, owned */
  CFG_FIELD_SECTION, /* a nested map the caller loads itself */
  CFG_FIELD_LIST,    /* a sequence the caller loads itself */
} CfgFieldType;

typedef struct {
  const char *key;
  CfgFieldType type;
  gsize offset;
  double min, max;          /* inclusive range for numbers */
  const char *const *names; /* CFG_FIELD_ENUM: NULL-terminated names */
  const char *unit;         /* for documentation and describe */
  const char *doc;          /* one line: meaning (the default lives in the loader) */
} CfgField;

/* Loads the keys of @map listed in @fields into @base; keys absent from the map keep the
 * value already in @base (the default).  Any key not in @fields is an error naming
 * @section.  @map may be NULL (nothing to load). */
gboolean cfg_load_fields(const CfgNode *map, const char *section, const CfgField *fields,
                         guint n_fields, gpointer base, GError **error);

gboolean cfg_node_to_uint64(const CfgNode *node, guint64 min, guint64 max, guint64 *out,
                            GError **error);
gboolean cfg_node_to_double(const CfgNode *node, double min, double max, double *out,
                            GError **error);
/* Checks @node is a map (or NULL). */
gboolean cfg_node_expect_map(const CfgNode *node, const char *section, GError **error);
