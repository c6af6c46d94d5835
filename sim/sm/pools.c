/* The storage of every SM's warps' and schedulers' arrays. */
#include "pools.h"

#include <string.h>

void
sm_pools_clear(SmPools *p)
{
  g_free(p->ready);
  g_free(p->producer);
  g_free(p->held);
  g_free(p->held_state);
  g_free(p->copy);
  g_free(p->simt);
  g_free(p->pred);
  g_free(p->slots);
  g_free(p->wake);
  g_free(p->age);
  g_free(p->resumed);
  g_free(p->issued);
  g_free(p->grid);
  g_free(p->in_pool);
  memset(p, 0, sizeof *p);
}
