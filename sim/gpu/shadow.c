/* The threads' record of global memory while SMs step apart (shadow.h). */
#include "shadow.h"

#include <sys/mman.h>

struct SmShadow {
  ExecMemory *mem;
  guint n;          /* buffers */
  guint64 **shadow; /* per buffer: a word per SHADOW_BYTES */
  gsize *shadow_bytes;
  guint64 **paged; /* per buffer: a bit per page of its shadow, set once the page is written */
  guint64 window, safe;
  GArray *window_ends; /* guint64 pairs: a window's number, the cycle it ends (not yet safe) */
  gint conflict;       /* two SMs' accesses met in windows not yet safe */
};

/* Bytes a shadow word covers: as many shadow bytes as the buffer's, and a false meeting only
 * where two blocks write neighbouring 4-byte words of one 8 (odd-sized blocks of floats) */
#define SHADOW_BYTES 8u
#define SHADOW_WINDOW ((G_GUINT64_CONSTANT(1) << 40) - 1)
#define SHADOW_SM_SHIFT 40
#define SHADOW_SEVERAL 0xffffu
#define SHADOW_WRITTEN (G_GUINT64_CONSTANT(1) << 63)
/* Shadow bytes a page holds (4 KiB on every Linux target; a larger page only means a few more
 * first writes than needed) */
#define SHADOW_PAGE 4096u

SmShadow *
sm_shadow_new(ExecMemory *mem)
{
  SmShadow *x = g_new0(SmShadow, 1);
  guint n = exec_memory_count(mem);
  x->mem = mem;
  x->n = n;
  x->shadow = g_new0(guint64 *, MAX(n, 1u));
  x->shadow_bytes = g_new0(gsize, MAX(n, 1u));
  x->paged = g_new0(guint64 *, MAX(n, 1u));
  x->window_ends = g_array_new(FALSE, FALSE, 2 * sizeof(guint64));
  for (guint b = 0; b < n; b++) {
    gsize size;
    exec_memory_data(mem, b, &size, NULL);
    x->shadow_bytes[b] = MAX((size + SHADOW_BYTES - 1) / SHADOW_BYTES, 1u) * sizeof(guint64);
    /* untouched pages cost nothing: most of a large buffer's shadow stays unread */
    void *p =
        mmap(NULL, x->shadow_bytes[b], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      g_error("cannot map %" G_GSIZE_FORMAT " bytes for the threads' record of buffer %s",
              x->shadow_bytes[b], exec_memory_name(mem, b));
    x->shadow[b] = p;
    x->paged[b] = g_new0(guint64, x->shadow_bytes[b] / SHADOW_PAGE / 64 + 1);
  }
  return x;
}

void
sm_shadow_free(SmShadow *x)
{
  for (guint b = 0; b < x->n; b++)
    if (x->shadow[b])
      munmap(x->shadow[b], x->shadow_bytes[b]);
  for (guint b = 0; b < x->n; b++)
    g_free(x->paged[b]);
  g_free(x->paged);
  g_free(x->shadow);
  g_free(x->shadow_bytes);
  g_array_free(x->window_ends, TRUE);
  g_free(x);
}

/* SM @m touches the bytes at @offset..+@len of buffer @b in the current window: the shadow
 * says so, unless another SM touched any of their 8-byte words in a window not yet safe, either
 * of them writing (then the single loop might have ordered the two otherwise: a conflict, and
 * FALSE). */
static gboolean
shadow_touch(SmShadow *x, guint b, guint64 offset, guint len, guint m, gboolean write)
{
  guint64 *sh = x->shadow[b], *paged = x->paged[b];
  for (guint64 word = offset / SHADOW_BYTES; word <= (offset + len - 1) / SHADOW_BYTES; word++) {
    /* A page's first access writes: read first, it would map the zero page, and the write
     * after would replace it with every thread's TLB flushed (a fifth of a 132-SM run's time) */
    guint64 page = word * sizeof(guint64) / SHADOW_PAGE, bit = G_GUINT64_CONSTANT(1) << page % 64;
    if (!(__atomic_load_n(&paged[page / 64], __ATOMIC_RELAXED) & bit)) {
      __atomic_fetch_or(&sh[word], 0, __ATOMIC_RELAXED);
      __atomic_fetch_or(&paged[page / 64], bit, __ATOMIC_RELAXED);
    }
    guint64 old = __atomic_load_n(&sh[word], __ATOMIC_RELAXED), new;
    do {
      guint who = (guint)(old >> SHADOW_SM_SHIFT) & 0xffffu;
      gboolean wrote = (old & SHADOW_WRITTEN) != 0;
      if ((old & SHADOW_WINDOW) <= x->safe) {
        new = x->window | (guint64)m << SHADOW_SM_SHIFT | (write ? SHADOW_WRITTEN : 0);
      } else if (who == m) {
        new = x->window | (guint64)m << SHADOW_SM_SHIFT | (write || wrote ? SHADOW_WRITTEN : 0);
      } else if (write || wrote) {
        g_atomic_int_set(&x->conflict, 1);
        return FALSE;
      } else {
        new = x->window | (guint64)SHADOW_SEVERAL << SHADOW_SM_SHIFT;
      }
      if (new == old)
        break;
    } while (!__atomic_compare_exchange_n(&sh[word], &old, new, TRUE, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
  }
  return TRUE;
}

/* Two SMs never touch one word in a window where one of them writes: the second is refused.
 * Lanes whose bytes run on from the previous lanes' are marked together, a span at a time. */
gboolean
sm_shadow_guard(gpointer data, guint32 smid, const guint64 addr[32], guint32 lanes, guint bytes,
                gboolean write)
{
  SmShadow *x = data;
  gint b = -1, span = -1; /* the buffer found last; the span's (-1: no span) */
  gsize size = 0;
  guint64 base = 0, lo = 0, hi = 0; /* buffer b's address and size; the span's bytes */
  guint len = MAX(bytes, 1u);
  for (guint32 e = lanes; e; e &= e - 1) {
    guint64 a = addr[__builtin_ctz(e)];
    if (span >= 0 && a >= lo && a <= hi && a < base + size) {
      hi = MAX(hi, MIN(a + len, base + size));
      continue;
    }
    if (span >= 0 && !shadow_touch(x, (guint)span, lo - base, (guint)(hi - lo), smid, write))
      return FALSE;
    span = -1;
    if (b < 0 || a < base || a >= base + size) { /* (lanes mostly stay in one buffer) */
      b = exec_memory_index(x->mem, a, 1);
      if (b < 0)
        continue; /* the executor refuses it: the run stops */
      exec_memory_data(x->mem, (guint)b, &size, &base);
    }
    span = b;
    lo = a;
    hi = MIN(a + len, base + size);
  }
  return span < 0 || shadow_touch(x, (guint)span, lo - base, (guint)(hi - lo), smid, write);
}

void
sm_shadow_window(SmShadow *x, guint64 start, guint64 end)
{
  GArray *ends = x->window_ends;
  guint done = 0;
  while (done < ends->len && g_array_index(ends, guint64, 2 * done + 1) <= start) {
    x->safe = g_array_index(ends, guint64, 2 * done);
    done++;
  }
  g_array_remove_range(ends, 0, done);
  x->window++;
  if (x->window > SHADOW_WINDOW)
    g_error("threads: more than %" G_GUINT64_FORMAT " windows", SHADOW_WINDOW);
  guint64 e[2] = {x->window, end};
  g_array_append_vals(ends, e, 1);
}

gboolean
sm_shadow_conflicted(const SmShadow *x)
{
  return g_atomic_int_get(&x->conflict) != 0;
}
