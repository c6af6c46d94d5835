/* Register-file write ports of one scheduler: how many results are written in each cycle
 * from now on.  A fixed-latency instruction needs its write cycle free when it issues; a
 * variable-latency result (SFU, shared or global memory) takes the first free cycle from its
 * arrival on.  Not who decides when a warp may issue (gpu/loop.c) nor what an issue takes
 * (gpu/issue.c).
 *
 * A ring of pages of 64 cycles, one byte of count a cycle (a page is one cache line), each
 * slot tagged with the page of cycles it holds: a whole-GPU grid keeps one ring per scheduler,
 * 528 on the H100, and they must stay in the caches.  A slot holding another page reads as no
 * port taken; a take that would overwrite a page not yet passed doubles the ring instead (a
 * queue of DRAM requests can put a result tens of thousands of cycles out).
 */
#pragma once

#include <glib.h>
#include <string.h>

#define SM_PORTS_PAGE_BITS 6u
#define SM_PORTS_PAGE (1u << SM_PORTS_PAGE_BITS)

typedef struct {
  guint8 *counts; /* per slot, SM_PORTS_PAGE counts */
  guint64 *pages; /* per slot: the page (cycle >> SM_PORTS_PAGE_BITS) it holds; G_MAXUINT64: none */
  guint64 mask;   /* slots - 1 (a power of two) */
  /* the page of the last take that went past it, and its counts: most reads and takes are of
   * the next few cycles (a fixed-latency result), and find it here */
  guint64 near_page;
  guint8 *near;
} SmPorts;

/* A ring with no port taken; sm_ports_clear frees it. */
void sm_ports_init(SmPorts *p);
void sm_ports_clear(SmPorts *p);
/* @to becomes a copy of @from. */
void sm_ports_copy(SmPorts *to, const SmPorts *from);
/* Forgets every port taken. */
void sm_ports_reset(SmPorts *p);
/* The latest cycle a port is taken for (0: none); a walk over the ring (the fast-forward's). */
guint64 sm_ports_last(const SmPorts *p);
/* Out of line: doubles the ring until no page from @now on shares a slot with @cycle's. */
void sm_ports_grow(SmPorts *p, guint64 now, guint64 cycle);

/* Ports taken for @cycle. */
static inline guint
sm_ports_used(const SmPorts *p, guint64 cycle)
{
  guint64 page = cycle >> SM_PORTS_PAGE_BITS;
  if (page == p->near_page)
    return p->near[cycle & (SM_PORTS_PAGE - 1)];
  /* without a branch: whether the slot holds this page is as random as the results' cycles */
  guint64 i = page & p->mask;
  guint used = p->counts[i << SM_PORTS_PAGE_BITS | (cycle & (SM_PORTS_PAGE - 1))];
  return used & -(guint)(p->pages[i] == page);
}

/* Takes a port for @cycle, at the scheduler's cycle @now (no port of an earlier cycle is read
 * again); the caller made sure one is free. */
static inline void
sm_ports_take(SmPorts *p, guint64 now, guint64 cycle)
{
  guint64 page = cycle >> SM_PORTS_PAGE_BITS;
  if (page != p->near_page) {
    guint64 i = page & p->mask, old = p->pages[i];
    if (old != page) {
      /* the slot holds a page not yet passed (a later one, or an earlier one that ends at now
       * or after): the ring is too small.  (No page, G_MAXUINT64, wraps to 0 here: passed.) */
      if (G_UNLIKELY(((old + 1) << SM_PORTS_PAGE_BITS) > now)) {
        sm_ports_grow(p, now, cycle);
        i = page & p->mask;
      }
      p->pages[i] = page; /* a page has one slot: @page was in none */
      memset(&p->counts[i << SM_PORTS_PAGE_BITS], 0, SM_PORTS_PAGE);
    }
    p->near_page = page;
    p->near = &p->counts[i << SM_PORTS_PAGE_BITS];
  }
  p->near[cycle & (SM_PORTS_PAGE - 1)]++;
}
