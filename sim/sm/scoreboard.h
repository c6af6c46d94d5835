/* Per-warp register readiness; not the warp's place in the stream (warp.h).
 *
 * For every register slot of the stream and every consumer unit, the cycle from which an
 * instruction on that unit may read it (results can reach CUDA cores sooner than the SFU,
 * Maxwell's SFU->ALU 9 vs SFU->SFU 13).  Plus, per slot, the stall state a warp waiting on
 * that register is in (who produced it).  Memory results get their completion cycle at
 * issue: the memory model serves in order, so it is known then.
 */
#pragma once

#include "../../isa/stream.h"
#include "stats.h"

typedef struct {
  guint64 *ready;     /* n_regs x ISA_UNIT_COUNT */
  guint8 *producer;   /* n_regs: SmState of a warp waiting on this register */
  guint64 *held;      /* n_regs: read by a store until then, not to be written before (lsu.h);
                         NULL: no store holds its registers */
  guint8 *held_state; /* n_regs: SmState of a warp waiting to write a held register */
} SmScoreboard;

static inline guint64
sm_scoreboard_ready(const SmScoreboard *sb, guint8 reg, IsaUnit consumer)
{
  return sb->ready[(guint)reg * ISA_UNIT_COUNT + consumer];
}

/* Latest readiness among @insn's operands for a consumer on @unit; *state = why. */
static inline guint64
sm_scoreboard_operands_ready(const SmScoreboard *sb, const IsaInsn *insn, IsaUnit unit,
                             SmState *state)
{
  guint64 r = 0;
  guint8 worst = ISA_NO_REG;
  for (guint i = 0; i < insn->nsrc; i++) {
    guint64 x = sm_scoreboard_ready(sb, insn->src[i], unit);
    if (x > r) {
      r = x;
      worst = insn->src[i];
    }
  }
  /* write-after-write on a register still being loaded */
  if (insn->dst != ISA_NO_REG) {
    guint64 x = sm_scoreboard_ready(sb, insn->dst, unit);
    if (x > r) {
      r = x;
      worst = insn->dst;
    }
  }
  if (worst != ISA_NO_REG)
    *state = (SmState)sb->producer[worst];
  return r;
}

/* The same for an instruction whose registers IsaDeps lists (SASS: pairs, predicates, several
 * results): its sources, and its results still being written. */
static inline guint64
sm_scoreboard_deps_ready(const SmScoreboard *sb, const IsaDeps *d, IsaUnit unit, SmState *state)
{
  guint64 r = 0;
  guint8 worst = ISA_NO_REG;
  for (guint i = 0; i < d->n_src; i++) {
    guint64 x = sm_scoreboard_ready(sb, d->src[i], unit);
    if (x > r) {
      r = x;
      worst = d->src[i];
    }
  }
  gboolean held = FALSE; /* the worst is a register a store still reads */
  for (guint i = 0; i < d->n_dst; i++) {
    guint64 x = sm_scoreboard_ready(sb, d->dst[i], unit);
    if (x > r) {
      r = x;
      worst = d->dst[i];
      held = FALSE;
    }
    if (G_UNLIKELY(sb->held != NULL) && sb->held[d->dst[i]] > r) {
      r = sb->held[d->dst[i]];
      worst = d->dst[i];
      held = TRUE;
    }
  }
  if (worst != ISA_NO_REG)
    *state = held ? (SmState)sb->held_state[worst] : (SmState)sb->producer[worst];
  return r;
}

/* A store reads @d's sources until @until: writing one of them waits (write after read), in
 * @state. */
static inline void
sm_scoreboard_hold(SmScoreboard *sb, const IsaDeps *d, guint64 until, SmState state)
{
  for (guint i = 0; i < d->n_src; i++)
    if (until > sb->held[d->src[i]]) {
      sb->held[d->src[i]] = until;
      sb->held_state[d->src[i]] = (guint8)state;
    }
}

/* @reg is ready for a consumer on unit u from cycle base + latency[u]. */
static inline void
sm_scoreboard_write(SmScoreboard *sb, guint8 reg, guint64 base,
                    const guint32 latency[ISA_UNIT_COUNT], SmState waiting_state)
{
  guint64 *row = &sb->ready[(guint)reg * ISA_UNIT_COUNT];
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    row[u] = base + latency[u];
  sb->producer[reg] = (guint8)waiting_state;
}
