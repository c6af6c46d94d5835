/* A lab server (serve/server.h) on a thread of its own, for the tests of its API and its load
 * test: started on a free port of 127.0.0.1, stopped and freed by lab_server_stop(). */
#pragma once

#include "../../sim/serve/server.h"

typedef struct LabServer LabServer;

/* lab_server_stop() also releases cairo's and fontconfig's caches (sm_plot_shutdown()): one server
 * at a time.  The GPUs and kernels of the source tree (SMSIM_PATH), @limits NULL for the defaults.
 */
LabServer *lab_server_start(const SmLabLimits *limits, guint jobs, guint queue);
void lab_server_stop(LabServer *s);
/* "http://127.0.0.1:PORT" (owned by @s) and the port. */
const char *lab_server_url(LabServer *s);
guint lab_server_port(LabServer *s);
SmServer *lab_server_server(LabServer *s);
