/* The register-file write-port ring's rare steps: set-up, copies, growth (ports.h). */
#include "ports.h"

#include <string.h>

#define INITIAL_PAGES 16u /* 1024 cycles: ALU and SFU results, most shared-memory and L2 ones */

void
sm_ports_init(SmPorts *p)
{
  p->mask = INITIAL_PAGES - 1;
  p->counts = g_new(guint8, INITIAL_PAGES * SM_PORTS_PAGE);
  p->pages = g_new(guint64, INITIAL_PAGES);
  sm_ports_reset(p);
}

void
sm_ports_clear(SmPorts *p)
{
  g_clear_pointer(&p->counts, g_free);
  g_clear_pointer(&p->pages, g_free);
}

void
sm_ports_copy(SmPorts *to, const SmPorts *from)
{
  gsize n = from->mask + 1;
  if (to->mask != from->mask) {
    to->counts = g_renew(guint8, to->counts, n * SM_PORTS_PAGE);
    to->pages = g_renew(guint64, to->pages, n);
    to->mask = from->mask;
  }
  memcpy(to->counts, from->counts, n * SM_PORTS_PAGE);
  memcpy(to->pages, from->pages, n * sizeof(guint64));
  to->near_page = from->near_page;
  to->near = to->counts + (from->near - from->counts);
}

void
sm_ports_reset(SmPorts *p)
{
  for (guint64 i = 0; i <= p->mask; i++)
    p->pages[i] = G_MAXUINT64; /* no page: its counts are cleared when one comes */
  p->near_page = G_MAXUINT64;  /* no cycle's page */
  p->near = p->counts;
}

guint64
sm_ports_last(const SmPorts *p)
{
  guint64 last = 0;
  for (guint64 i = 0; i <= p->mask; i++) {
    if (p->pages[i] == G_MAXUINT64)
      continue;
    for (guint j = SM_PORTS_PAGE; j-- > 0;) {
      if (p->counts[i << SM_PORTS_PAGE_BITS | j]) {
        last = MAX(last, p->pages[i] << SM_PORTS_PAGE_BITS | j);
        break;
      }
    }
  }
  return last;
}

void
sm_ports_grow(SmPorts *p, guint64 now, guint64 cycle)
{
  /* the pages still to come, and the new one, must each have a slot of their own */
  guint64 first = now >> SM_PORTS_PAGE_BITS, last = cycle >> SM_PORTS_PAGE_BITS;
  for (guint64 i = 0; i <= p->mask; i++)
    if (p->pages[i] != G_MAXUINT64 && p->pages[i] >= first)
      last = MAX(last, p->pages[i]);
  guint64 n = p->mask + 1;
  while (n <= last - first)
    n *= 2;
  guint8 *counts = g_new(guint8, n * SM_PORTS_PAGE);
  guint64 *pages = g_new(guint64, n);
  for (guint64 i = 0; i < n; i++)
    pages[i] = G_MAXUINT64;
  for (guint64 i = 0; i <= p->mask; i++) {
    guint64 pg = p->pages[i];
    if (pg != G_MAXUINT64 && pg >= first) {
      pages[pg & (n - 1)] = pg;
      memcpy(&counts[(pg & (n - 1)) << SM_PORTS_PAGE_BITS], &p->counts[i << SM_PORTS_PAGE_BITS],
             SM_PORTS_PAGE);
    }
  }
  g_free(p->counts);
  g_free(p->pages);
  p->counts = counts;
  p->pages = pages;
  p->mask = n - 1;
  p->near_page = G_MAXUINT64; /* the take that grew the ring sets it again */
  p->near = p->counts;
}
