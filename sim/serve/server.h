/* smsim serve's HTTP server: the lab page and the lab's JSON API (lab.h) over libsoup 3 on the
 * GLib main loop of the thread that creates it.  Runs and sweeps go to a pool of @jobs threads;
 * up to @queue more wait, and the next is answered 503 busy.  A run whose client goes away is
 * cancelled.  Nothing is written to the file system.
 *
 *   GET  /                 the page (page/index.html), /lab.css, /lab.js: built into the program
 *   GET  /api/gpus, /api/kernels, /api/explain, /api/limits
 *   POST /api/run, /api/sweep, /api/gpu     (lab.h: bodies and answers)
 * Refusals answer {"error": MESSAGE, "status": CODE} with that HTTP status. */
#pragma once

#include "lab.h"

typedef struct SmServer SmServer;

/* A server for @lab (borrowed: it must outlive the server). */
SmServer *sm_server_new(SmLab *lab, guint jobs, guint queue);
/* Listens on @address (an IPv4 or IPv6 literal) and @port (0: a free one); FALSE with an error
 * ("serve: cannot listen on 127.0.0.1:8080: Address already in use"). */
gboolean sm_server_listen(SmServer *server, const char *address, guint port, GError **error);
/* The address to open, "http://127.0.0.1:8080/" (newly allocated). */
char *sm_server_uri(SmServer *server);
/* Requests answered so far, and runs and sweeps cancelled because their client went away (safe
 * to read from any thread). */
guint sm_server_served(SmServer *server);
guint sm_server_cancelled(SmServer *server);
/* Runs and sweeps going or waiting now (any thread). */
guint sm_server_pending(SmServer *server);
/* Cancels what runs, waits for the threads, answers nothing more. */
void sm_server_free(SmServer *server);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmServer, sm_server_free)
