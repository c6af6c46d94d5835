/* GPU and kernel files by name: "h100" for config/gpus/h100.yaml, "textbook/saxpy" for
 * isa/kernels/textbook/saxpy.yaml, wherever smsim runs from.  Not what the files hold (gpu.h,
 * kernel.h).
 *
 * A name is looked up, first found wins, in:
 *   1. each folder of $SMSIM_PATH (colon-separated): NAME.yaml there, then in its gpus/ or
 *      kernels/ subfolder (a file straight in the folder counts only if it is of the kind asked);
 *   2. the source tree, when this program runs from its build folder (config/gpus, isa/kernels);
 *   3. the installed data folder, found beside the program (PREFIX/bin/smsim ->
 *      PREFIX/share/smsim, so a tree installed anywhere, DESTDIR included, finds its own), then
 *      where the build was configured to install it.
 * An argument that names an existing file is that file: paths work as they always did; one
 * that starts with "/", "./", "../" or "~" is always a path. */
#pragma once

#include <glib.h>

typedef enum { CFG_FIND_GPU, CFG_FIND_KERNEL, CFG_FIND_ANY /* a GPU, else a kernel */ } CfgFindKind;

/* The path of @arg: itself when it is an existing file or an explicit path, else the file its
 * name finds, else (for "dir/x.yaml") itself, for the reader to say it cannot read it.  On
 * failure: "h10: no such file, and no GPU of that name (did you mean 'h100'? 'smsim list gpus'
 * shows them all)", or "mix: names a kernel (PATH), where a GPU is expected; ...". */
char *cfg_find_file(const char *arg, CfgFindKind kind, GError **error);

/* One file found by name. */
typedef struct {
  char *name;        /* "h100", "textbook/saxpy" */
  char *path;        /* the file */
  char *folder;      /* the search path's folder it was found in */
  guint rank;        /* that folder's place in the search path (0 first) */
  char *origin;      /* where that folder came from: "SMSIM_PATH", "source tree", "installed" */
  char *description; /* a GPU's name key, a kernel's description key (first sentence), or "" */
} CfgFound;

/* Every file of @kind (GPUs, then kernels, for CFG_FIND_ANY) the search path holds, by name,
 * sorted; a name shadowed by an earlier folder appears once, as found first.  Files that do not
 * parse or are of the other kind are left out. */
GPtrArray *cfg_find_all(CfgFindKind kind);

/* The folders searched for @kind, in order, that exist ("origin: folder" strings). */
GPtrArray *cfg_find_folders(CfgFindKind kind);

/* Keeps @name in *@best when it is nearer @key than what is there (at most 2 edits, and fewer
 * than half of @key's length): "did you mean" for names and keys. */
void cfg_nearer(const char *key, const char *name, const char **best, guint *best_d);

/* The installed data folder this build was configured for (PREFIX/share/smsim). */
const char *cfg_find_install_dir(void);
