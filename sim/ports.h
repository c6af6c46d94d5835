/* Register-file write ports of one scheduler: how many results are written in each cycle
 * from now on.  A fixed-latency instruction needs its write cycle free when it issues; a
 * variable-latency result (SFU, shared or global memory) takes the first free cycle from its
 * arrival on.  Not who decides when a warp may issue (sm.c) nor what an issue takes (issue.c).
 *
 * A ring of counts packed into 64-bit words, 1, 2 or 4 bits a cycle (as few as the ports
 * need), each word tagged with the block of cycles its counts are of: a whole-GPU grid keeps
 * one ring per scheduler, 528 on the H100, and they must stay in the caches.  A word of
 * another block reads as no port taken; a take that would overwrite a block still ahead of
 * the scheduler doubles the ring instead (a queue of DRAM requests can put a result tens of
 * thousands of cycles out).
 */
#pragma once

#include <glib.h>

typedef struct {
  guint64 *words;   /* counts, packed */
  guint64 *blocks;  /* per word: the block of cycles (cycle >> per_word_log2) it counts */
  guint64 hi;       /* latest cycle taken (0: none) */
  guint64 n_words;  /* a power of two */
  guint width_log2; /* bits per count: 1 << width_log2 */
  guint per_word_log2;
} SmPorts;

/* A ring for @ports write ports (1 to 15), none taken; sm_ports_clear frees it. */
void sm_ports_init(SmPorts *p, guint ports);
void sm_ports_clear(SmPorts *p);
/* @to becomes a copy of @from (both initialised for the same ports). */
void sm_ports_copy(SmPorts *to, const SmPorts *from);
/* Forgets every port taken. */
void sm_ports_reset(SmPorts *p);
/* Out of line: doubles the ring until no block from @now on shares a word with @cycle's. */
void sm_ports_grow(SmPorts *p, guint64 now, guint64 cycle);

/* Ports taken for @cycle. */
static inline guint
sm_ports_used(const SmPorts *p, guint64 cycle)
{
  guint64 block = cycle >> p->per_word_log2, i = block & (p->n_words - 1);
  if (p->blocks[i] != block)
    return 0;
  guint shift = (guint)(cycle & ((1u << p->per_word_log2) - 1)) << p->width_log2;
  return (guint)(p->words[i] >> shift) & ((1u << (1u << p->width_log2)) - 1);
}

/* Takes a port for @cycle, at the scheduler's cycle @now (no port of an earlier cycle is read
 * again); the caller made sure one is free. */
static inline void
sm_ports_take(SmPorts *p, guint64 now, guint64 cycle)
{
  guint64 block = cycle >> p->per_word_log2, i = block & (p->n_words - 1);
  if (p->blocks[i] != block) {
    guint64 old = p->blocks[i];
    if (G_UNLIKELY(old != G_MAXUINT64 && old > block)) {
      sm_ports_grow(p, now, cycle); /* a later block */
      i = block & (p->n_words - 1);
    } else if (G_UNLIKELY(old != G_MAXUINT64 && ((old + 1) << p->per_word_log2) > now)) {
      sm_ports_grow(p, now, cycle); /* an earlier block not yet passed */
      i = block & (p->n_words - 1);
    }
    if (p->blocks[i] != block) {
      p->blocks[i] = block;
      p->words[i] = 0;
    }
  }
  guint shift = (guint)(cycle & ((1u << p->per_word_log2) - 1)) << p->width_log2;
  p->words[i] += (guint64)1 << shift;
  p->hi = MAX(p->hi, cycle);
}
