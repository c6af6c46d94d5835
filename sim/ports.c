/* The register-file write-port ring's rare steps: set-up, copies, growth (ports.h). */
#include "ports.h"

#include <string.h>

#define INITIAL_CYCLES 1024u /* ALU and SFU results, most shared-memory and L2 ones */

void
sm_ports_init(SmPorts *p, guint ports)
{
  *p = (SmPorts){0};
  p->width_log2 = ports <= 1 ? 0 : ports <= 3 ? 1 : 2;
  p->per_word_log2 = 6 - p->width_log2;
  p->n_words = INITIAL_CYCLES >> p->per_word_log2;
  p->words = g_new0(guint64, p->n_words);
  p->blocks = g_new(guint64, p->n_words);
  sm_ports_reset(p);
}

void
sm_ports_clear(SmPorts *p)
{
  g_clear_pointer(&p->words, g_free);
  g_clear_pointer(&p->blocks, g_free);
}

void
sm_ports_copy(SmPorts *to, const SmPorts *from)
{
  if (to->n_words != from->n_words) {
    to->words = g_renew(guint64, to->words, from->n_words);
    to->blocks = g_renew(guint64, to->blocks, from->n_words);
    to->n_words = from->n_words;
  }
  memcpy(to->words, from->words, from->n_words * sizeof(guint64));
  memcpy(to->blocks, from->blocks, from->n_words * sizeof(guint64));
  to->hi = from->hi;
}

void
sm_ports_reset(SmPorts *p)
{
  memset(p->words, 0, p->n_words * sizeof(guint64));
  for (guint64 i = 0; i < p->n_words; i++)
    p->blocks[i] = G_MAXUINT64; /* no block */
  p->hi = 0;
}

void
sm_ports_grow(SmPorts *p, guint64 now, guint64 cycle)
{
  /* the blocks still to come, and the new one, must each have a word of their own */
  guint64 first = now >> p->per_word_log2, last = cycle >> p->per_word_log2;
  for (guint64 i = 0; i < p->n_words; i++)
    if (p->blocks[i] != G_MAXUINT64 && p->blocks[i] >= first)
      last = MAX(last, p->blocks[i]);
  guint64 n = p->n_words;
  while (n <= last - first)
    n *= 2;
  guint64 *words = g_new0(guint64, n), *blocks = g_new(guint64, n);
  for (guint64 i = 0; i < n; i++)
    blocks[i] = G_MAXUINT64;
  for (guint64 i = 0; i < p->n_words; i++) {
    guint64 b = p->blocks[i];
    if (b != G_MAXUINT64 && b >= first) {
      words[b & (n - 1)] = p->words[i];
      blocks[b & (n - 1)] = b;
    }
  }
  g_free(p->words);
  g_free(p->blocks);
  p->words = words;
  p->blocks = blocks;
  p->n_words = n;
}
