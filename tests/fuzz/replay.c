/* Replays fuzz corpora as an ordinary test: every file of every folder given is fed to the
 * harness linked with this file (a crash or a sanitizer report fails the test).  TAP output. */
#include <glib.h>
#include <stdio.h>

#include "fuzz.h"

int
main(int argc, char **argv)
{
  guint n = 0;
  for (int i = 1; i < argc; i++) {
    g_autoptr(GDir) dir = g_dir_open(argv[i], 0, NULL);
    if (dir == NULL)
      continue;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(dir)) != NULL)
      g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
    for (guint f = 0; f < names->len; f++) {
      g_autofree char *path = g_build_filename(argv[i], g_ptr_array_index(names, f), NULL);
      g_autofree char *data = NULL;
      gsize size = 0;
      if (!g_file_get_contents(path, &data, &size, NULL))
        continue;
      LLVMFuzzerTestOneInput((const uint8_t *)data, size);
      n++;
    }
  }
  printf("1..1\nok 1 - %u inputs replayed\n", n);
  return n > 0 ? 0 : 1;
}
