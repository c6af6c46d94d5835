/* Global memory: a sparse image of the kernel's buffers at device addresses far apart, so
 * that an address past a buffer's end belongs to no buffer (and is reported, not followed). */
#include "exec-internal.h"

#include <string.h>
#include <sys/mman.h>

#define EXEC_MEMORY_BASE G_GUINT64_CONSTANT(0x7f0000000000)
/* room between buffers: an access past one buffer's end does not reach the next */
#define EXEC_MEMORY_GAP G_GUINT64_CONSTANT(0x100000)

typedef struct {
  char *name;
  guint64 address;
  gsize size;
  guint8 *data;
  gboolean mapped; /* data is an anonymous mapping (large buffers) */
} ExecBuffer;

/* Buffers from this size on are mapped rather than allocated: their pages stay untouched,
 * and cost nothing, until the kernel or a fill writes them (a 1 GiB buffer of which a run
 * reads a few lines). */
#define EXEC_MEMORY_MAP_BYTES ((gsize)1 << 20)

static void
buffer_free(ExecBuffer *b)
{
  if (b->mapped)
    munmap(b->data, b->size);
  else
    g_free(b->data);
}

struct ExecMemory {
  GArray *buffers; /* ExecBuffer, by address */
  guint64 next;
  /* the buffer found last (most accesses stay in one); SMs on threads share it, so it is read
   * and written atomically (any value is only where to look first) */
  guint last;
  ExecGuardFn guard; /* asked before a global access (exec_memory_set_guard()) */
  gpointer guard_data;
};

ExecMemory *
exec_memory_new(void)
{
  ExecMemory *mem = g_new0(ExecMemory, 1);
  mem->buffers = g_array_new(FALSE, TRUE, sizeof(ExecBuffer));
  mem->next = EXEC_MEMORY_BASE;
  return mem;
}

void
exec_memory_free(ExecMemory *mem)
{
  if (!mem)
    return;
  for (guint i = 0; i < mem->buffers->len; i++) {
    ExecBuffer *b = &g_array_index(mem->buffers, ExecBuffer, i);
    g_free(b->name);
    buffer_free(b);
  }
  g_array_free(mem->buffers, TRUE);
  g_free(mem);
}

guint64
exec_memory_add(ExecMemory *mem, const char *name, gsize size)
{
  ExecBuffer b = {.name = g_strdup(name), .address = mem->next, .size = size};
  if (size >= EXEC_MEMORY_MAP_BYTES) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      g_error("cannot map %" G_GSIZE_FORMAT " bytes for buffer %s", size, name);
    b.data = p;
    b.mapped = TRUE;
  } else {
    b.data = g_malloc0(MAX(size, 1));
  }
  g_array_append_val(mem->buffers, b);
  mem->next += ((size + 255) & ~(guint64)255) + EXEC_MEMORY_GAP;
  return b.address;
}

guint
exec_memory_count(const ExecMemory *mem)
{
  return mem->buffers->len;
}

const char *
exec_memory_name(const ExecMemory *mem, guint index)
{
  return g_array_index(mem->buffers, ExecBuffer, index).name;
}

guint8 *
exec_memory_data(ExecMemory *mem, guint index, gsize *size, guint64 *address)
{
  ExecBuffer *b = &g_array_index(mem->buffers, ExecBuffer, index);
  if (size)
    *size = b->size;
  if (address)
    *address = b->address;
  return b->data;
}

gint
exec_memory_index(ExecMemory *mem, guint64 addr, gsize len)
{
  guint n = mem->buffers->len;
  guint last = (guint)g_atomic_int_get((gint *)&mem->last);
  for (guint k = 0; k <= n; k++) {
    guint i = k == 0 ? last : k - 1;
    if (i >= n || (k > 0 && i == last))
      continue;
    const ExecBuffer *c = &g_array_index(mem->buffers, ExecBuffer, i);
    if (addr >= c->address && addr + len <= c->address + c->size) {
      if (i != last)
        g_atomic_int_set((gint *)&mem->last, (gint)i);
      return (gint)i;
    }
  }
  return -1;
}

void
exec_memory_set_guard(ExecMemory *mem, ExecGuardFn fn, gpointer data)
{
  mem->guard = fn;
  mem->guard_data = data;
}

gboolean
exec_memory_guarded(const ExecMemory *mem)
{
  return mem->guard != NULL;
}

gboolean
exec_memory_may(ExecMemory *mem, guint32 smid, const guint64 addr[32], guint32 lanes, guint bytes,
                gboolean write)
{
  return !mem->guard || mem->guard(mem->guard_data, smid, addr, lanes, bytes, write);
}

guint8 *
exec_memory_at(ExecMemory *mem, guint64 addr, gsize len)
{
  gint i = exec_memory_index(mem, addr, len);
  if (i < 0)
    return NULL;
  ExecBuffer *b = &g_array_index(mem->buffers, ExecBuffer, i);
  return b->data + (addr - b->address);
}
