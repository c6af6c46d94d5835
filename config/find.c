/* GPU and kernel files by name along the search path (find.h). */
#include "find.h"

#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "load.h"

/* One folder of the search path. */
typedef struct {
  char *dir;
  const char *origin;
  gboolean mixed; /* a $SMSIM_PATH folder itself: its files are checked for their kind */
} Folder;

static void
folder_free(gpointer p)
{
  Folder *f = p;
  g_free(f->dir);
  g_free(f);
}

static void
add_folder(GPtrArray *folders, char *dir, const char *origin, gboolean mixed)
{
  for (guint i = 0; i < folders->len; i++) {
    Folder *f = g_ptr_array_index(folders, i);
    g_autofree char *a = g_canonicalize_filename(f->dir, NULL);
    g_autofree char *b = g_canonicalize_filename(dir, NULL);
    if (strcmp(a, b) == 0) { /* the same folder twice: the first place it came from */
      g_free(dir);
      return;
    }
  }
  Folder *f = g_new0(Folder, 1);
  f->dir = dir;
  f->origin = origin;
  f->mixed = mixed;
  g_ptr_array_add(folders, f);
}

/* The folder this program is in, resolved (NULL when /proc does not say). */
static char *
program_dir(void)
{
  g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
  return exe ? g_path_get_dirname(exe) : NULL;
}

/* PREFIX when @exe_dir is PREFIX/BINDIR (BINDIR relative, as meson keeps it), else NULL. */
static char *
install_prefix(const char *exe_dir)
{
  const char *bindir = SMSIM_INSTALL_BINDIR;
  if (g_path_is_absolute(bindir))
    return NULL;
  gsize n = strlen(exe_dir), b = strlen(bindir);
  if (n <= b + 1 || exe_dir[n - b - 1] != '/' || strcmp(exe_dir + n - b, bindir) != 0)
    return NULL;
  return g_strndup(exe_dir, n - b - 1);
}

/* Whether @dir is @root or inside it (both resolved). */
static gboolean
is_inside(const char *dir, const char *root)
{
  g_autofree char *real_root = realpath(root, NULL);
  if (real_root == NULL)
    return FALSE;
  gsize n = strlen(real_root);
  return strncmp(dir, real_root, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

static GPtrArray *
folders_for(CfgFindKind kind)
{
  const char *sub = kind == CFG_FIND_GPU ? "gpus" : "kernels";
  GPtrArray *folders = g_ptr_array_new_with_free_func(folder_free);
  const char *path = g_getenv("SMSIM_PATH");
  if (path && *path) {
    g_auto(GStrv) dirs = g_strsplit(path, ":", -1);
    for (guint i = 0; dirs[i]; i++) {
      if (dirs[i][0] == '\0')
        continue;
      add_folder(folders, g_strdup(dirs[i]), "SMSIM_PATH", TRUE);
      add_folder(folders, g_build_filename(dirs[i], sub, NULL), "SMSIM_PATH", FALSE);
    }
  }
  g_autofree char *exe_dir = program_dir();
  if (exe_dir && is_inside(exe_dir, SMSIM_BUILD_DIR))
    add_folder(
        folders,
        g_build_filename(SMSIM_SOURCE_DIR, kind == CFG_FIND_GPU ? "config" : "isa", sub, NULL),
        "source tree", FALSE);
  g_autofree char *prefix = exe_dir ? install_prefix(exe_dir) : NULL;
  if (prefix && !g_path_is_absolute(SMSIM_INSTALL_DATADIR))
    add_folder(folders, g_build_filename(prefix, SMSIM_INSTALL_DATADIR, "smsim", sub, NULL),
               "installed", FALSE);
  add_folder(folders, g_build_filename(cfg_find_install_dir(), sub, NULL), "installed", FALSE);
  return folders;
}

const char *
cfg_find_install_dir(void)
{
  static char *dir; /* made once, kept for the program's life */
  static gsize made;
  if (g_once_init_enter(&made)) {
    dir = g_path_is_absolute(SMSIM_INSTALL_DATADIR)
              ? g_build_filename(SMSIM_INSTALL_DATADIR, "smsim", NULL)
              : g_build_filename(SMSIM_INSTALL_PREFIX, SMSIM_INSTALL_DATADIR, "smsim", NULL);
    g_once_init_leave(&made, 1);
  }
  return dir;
}

GPtrArray *
cfg_find_folders(CfgFindKind kind)
{
  g_autoptr(GPtrArray) folders = folders_for(kind);
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < folders->len; i++) {
    Folder *f = g_ptr_array_index(folders, i);
    if (g_file_test(f->dir, G_FILE_TEST_IS_DIR))
      g_ptr_array_add(out, g_strdup_printf("%s: %s", f->origin, f->dir));
  }
  return out;
}

/* Whether the file at @path parses as a file of @kind; *@root gets it when asked. */
static gboolean
is_kind(const char *path, CfgFindKind kind, CfgNode **root)
{
  CfgNode *r = cfg_load_file(path, NULL);
  if (r == NULL)
    return FALSE;
  gboolean ok = kind == CFG_FIND_GPU ? cfg_is_gpu_file(r) : cfg_is_kernel_file(r);
  if (ok && root)
    *root = r;
  else
    cfg_node_free(r);
  return ok;
}

/* "./x", "/x", "~/x": a path, never a name */
static gboolean
is_explicit_path(const char *arg)
{
  return arg[0] == '/' || arg[0] == '~' || g_str_has_prefix(arg, "./") ||
         g_str_has_prefix(arg, "../");
}

/* @arg without a trailing ".yaml" or ".yml" */
static char *
bare_name(const char *arg)
{
  if (g_str_has_suffix(arg, ".yaml"))
    return g_strndup(arg, strlen(arg) - 5);
  if (g_str_has_suffix(arg, ".yml"))
    return g_strndup(arg, strlen(arg) - 4);
  return g_strdup(arg);
}

void
cfg_nearer(const char *key, const char *name, const char **best, guint *best_d)
{
  guint d = isa_name_distance(key, name);
  if (d <= 2 && 2 * d < strlen(key) && d < *best_d) {
    *best = name;
    *best_d = d;
  }
}

/* The file name @name finds for @kind along the search path, or NULL. */
static char *
lookup(const char *name, CfgFindKind kind)
{
  g_auto(GStrv) parts = g_strsplit(name, "/", -1);
  for (guint i = 0; parts[i]; i++) /* no "..", no empty part: a name, not a way out */
    if (parts[i][0] == '\0' || strcmp(parts[i], ".") == 0 || strcmp(parts[i], "..") == 0)
      return NULL;
  g_autoptr(GPtrArray) folders = folders_for(kind);
  g_autofree char *file = g_strconcat(name, ".yaml", NULL);
  for (guint i = 0; i < folders->len; i++) {
    Folder *f = g_ptr_array_index(folders, i);
    if (f->mixed && strchr(name, '/'))
      continue;
    g_autofree char *path = g_build_filename(f->dir, file, NULL);
    if (g_file_test(path, G_FILE_TEST_IS_REGULAR) && (!f->mixed || is_kind(path, kind, NULL)))
      return g_steal_pointer(&path);
  }
  return NULL;
}

char *
cfg_find_file(const char *arg, CfgFindKind kind, GError **error)
{
  if (g_file_test(arg, G_FILE_TEST_EXISTS) || is_explicit_path(arg) || arg[0] == '\0')
    return g_strdup(arg); /* a path: read (or fail to read) as it always was */
  g_autofree char *name = bare_name(arg);
  char *path = kind == CFG_FIND_ANY ? lookup(name, CFG_FIND_GPU) : lookup(name, kind);
  if (path == NULL && kind == CFG_FIND_ANY)
    path = lookup(name, CFG_FIND_KERNEL);
  if (path)
    return path;
  if (strchr(arg, '/') && (g_str_has_suffix(arg, ".yaml") || g_str_has_suffix(arg, ".yml")))
    return g_strdup(arg); /* "dir/x.yaml", no such name: the path it looks like, unreadable */
  const char *what = kind == CFG_FIND_GPU      ? "GPU"
                     : kind == CFG_FIND_KERNEL ? "kernel"
                                               : "GPU or kernel";
  CfgFindKind other = kind == CFG_FIND_GPU ? CFG_FIND_KERNEL : CFG_FIND_GPU;
  g_autofree char *other_path = kind == CFG_FIND_ANY ? NULL : lookup(name, other);
  if (other_path) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%s: names a %s (%s), where a %s is expected; the GPU comes first, then the "
                "kernel",
                arg, kind == CFG_FIND_GPU ? "kernel" : "GPU", other_path, what);
    return NULL;
  }
  /* not found: the nearest name, or one whose last part is the name */
  g_autoptr(GPtrArray) all = cfg_find_all(kind);
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; i < all->len; i++) {
    const CfgFound *f = g_ptr_array_index(all, i);
    const char *slash = strrchr(f->name, '/');
    if (slash && strcmp(slash + 1, name) == 0 && best_d > 0) {
      best = f->name;
      best_d = 0;
    }
    cfg_nearer(name, f->name, &best, &best_d);
  }
  g_autofree char *hint = best ? g_strdup_printf("did you mean '%s'? ", best) : g_strdup("");
  g_set_error(error, CFG_ERROR, CFG_ERROR_IO,
              "%s: no such file, and no %s of that name (%s'smsim list%s' shows them all)", arg,
              what, hint,
              kind == CFG_FIND_GPU      ? " gpus"
              : kind == CFG_FIND_KERNEL ? " kernels"
                                        : "");
  return NULL;
}

static void
found_free(gpointer p)
{
  CfgFound *f = p;
  g_free(f->name);
  g_free(f->path);
  g_free(f->folder);
  g_free(f->origin);
  g_free(f->description);
  g_free(f);
}

/* The first sentence of a description (to its first ". ", or all of its first line). */
static char *
first_sentence(const char *text)
{
  const char *end = strstr(text, ". ");
  const char *nl = strchr(text, '\n');
  if (nl && (!end || nl < end))
    end = nl;
  char *s = g_strstrip(end ? g_strndup(text, (gsize)(end - text)) : g_strdup(text));
  gsize n = strlen(s);
  if (n > 0 && s[n - 1] == '.')
    s[n - 1] = '\0';
  return s;
}

/* Adds the files of @kind under @dir (its subfolders too unless @f is a mixed one) whose names
 * @seen does not hold yet. */
static void
collect(const Folder *f, guint rank, const char *dir, const char *prefix, CfgFindKind kind,
        guint depth, GHashTable *seen, GPtrArray *out)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  if (d == NULL)
    return;
  const char *entry;
  while ((entry = g_dir_read_name(d)) != NULL) {
    g_autofree char *path = g_build_filename(dir, entry, NULL);
    g_autofree char *name = prefix ? g_strdup_printf("%s/%s", prefix, entry) : g_strdup(entry);
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
      if (!f->mixed && depth < 4)
        collect(f, rank, path, name, kind, depth + 1, seen, out);
      continue;
    }
    if (!g_str_has_suffix(entry, ".yaml"))
      continue;
    name[strlen(name) - 5] = '\0';
    CfgNode *root = NULL;
    if (g_hash_table_contains(seen, name) || !is_kind(path, kind, &root))
      continue;
    const CfgNode *d_node = cfg_node_get(root, kind == CFG_FIND_GPU ? "name" : "description");
    CfgFound *found = g_new0(CfgFound, 1);
    found->name = g_strdup(name);
    found->path = g_steal_pointer(&path);
    found->folder = g_strdup(f->dir);
    found->rank = rank;
    found->origin = g_strdup(f->origin);
    found->description =
        d_node && d_node->kind == CFG_NODE_SCALAR ? first_sentence(d_node->value) : g_strdup("");
    cfg_node_free(root);
    g_hash_table_add(seen, g_strdup(found->name));
    g_ptr_array_add(out, found);
  }
}

static gint
by_name(gconstpointer a, gconstpointer b)
{
  const CfgFound *x = *(CfgFound *const *)a, *y = *(CfgFound *const *)b;
  return strcmp(x->name, y->name);
}

/* Adds the files of @kind (not ANY) to @out, sorted by name. */
static void
find_all(CfgFindKind kind, GPtrArray *out)
{
  g_autoptr(GPtrArray) folders = folders_for(kind);
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) mine = g_ptr_array_new();
  for (guint i = 0; i < folders->len; i++) {
    const Folder *f = g_ptr_array_index(folders, i);
    collect(f, i, f->dir, NULL, kind, 0, seen, mine);
  }
  g_ptr_array_sort(mine, by_name);
  for (guint i = 0; i < mine->len; i++)
    g_ptr_array_add(out, g_ptr_array_index(mine, i));
}

GPtrArray *
cfg_find_all(CfgFindKind kind)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(found_free);
  if (kind != CFG_FIND_KERNEL)
    find_all(CFG_FIND_GPU, out);
  if (kind != CFG_FIND_GPU)
    find_all(CFG_FIND_KERNEL, out);
  return out;
}
