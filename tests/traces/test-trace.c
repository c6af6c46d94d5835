/* Traces: the Figure 4.7 timeline, VCD and Chrome JSON read back by independent readers,
 * tracing changes nothing, limits and errors. */
#include <cairo.h>
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define TOY "config/gpus/toy-fig47.yaml"
#define MAXWELL "config/gpus/maxwell.yaml"
#define MIX "isa/kernels/mix.yaml"

/* Runs smsim with @args and returns stdout (asserting exit status 0). */
static char *
run_ok(const char *const *args)
{
  char *out = NULL, *err = NULL;
  int status = test_smsim(args, &out, &err);
  ck_assert_msg(status == 0, "exit %d: %s", status, err);
  g_free(err);
  return out;
}

/* Runs smsim with @args plus "--trace FILE" (a new file called @name) and returns the trace. */
static char *
trace_text(const char *name, const char *const *args)
{
  g_autofree char *path = test_write_temp(name, "");
  GPtrArray *all = g_ptr_array_new();
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add(all, (gpointer)args[i]);
  g_ptr_array_add(all, (gpointer) "--trace");
  g_ptr_array_add(all, path);
  g_ptr_array_add(all, NULL);
  g_free(run_ok((const char *const *)all->pdata));
  g_ptr_array_free(all, TRUE);
  char *text = NULL;
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

static JsonObject *
run_json(const char *const *args, JsonParser **p)
{
  g_autofree char *out = run_ok(args);
  *p = json_parser_new();
  ck_assert(json_parser_load_from_data(*p, out, -1, NULL));
  return json_node_get_object(json_parser_get_root(*p));
}

START_TEST(test_text_timeline_matches_figure_4_7)
{
  g_autofree char *path = test_write_temp("fig.txt", "");
  const char *args[] = {
      "run",   TOY,         MIX,       "--set", "warps_per_sm=6", "--set", "alpha=4",
      "--set", "groups=20", "--trace", path,    "--trace-window", "0:100", NULL};
  g_autofree char *out = run_ok(args);
  g_autofree char *got = NULL, *want = NULL;
  g_autofree char *golden = test_source_path("tests/data/fig47-timeline.txt");
  ck_assert(g_file_get_contents(path, &got, NULL, NULL));
  ck_assert(g_file_get_contents(golden, &want, NULL, NULL));
  ck_assert_str_eq(got, want);
  /* and its bottom rows say it: 3 arithmetic and 3 memory instructions in flight from cycle 26 */
  const char *alu = strstr(got, "\nalu       ");
  const char *mem = strstr(got, "\nmemory    ");
  ck_assert(alu && mem);
  for (guint c = 26; c < 100; c++) {
    ck_assert_int_eq(alu[11 + c], '3');
    ck_assert_int_eq(mem[11 + c], '3');
  }
}
END_TEST

/* ---- a small VCD reader ---- */

typedef struct {
  char *name;
  guint width;
  gint64 value; /* -1: x */
} Var;

typedef struct {
  GHashTable *by_id; /* id -> Var */
  guint64 last_time;
  guint n_times;
} Vcd;

static void
var_free(gpointer p)
{
  Var *v = p;
  g_free(v->name);
  g_free(v);
}

/* Reads @path; for every change calls @fn with the time it happened and the old value. */
typedef void (*VcdFn)(const Var *var, gint64 old, guint64 time, gpointer user);

static void
read_vcd(const char *path, Vcd *vcd, VcdFn fn, gpointer user)
{
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  vcd->by_id = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, var_free);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  gboolean defs = TRUE, have_time = FALSE;
  guint64 time = 0;
  for (guint i = 0; lines[i]; i++) {
    const char *l = lines[i];
    if (defs) {
      if (g_str_has_prefix(l, "$var ")) {
        g_auto(GStrv) f = g_strsplit(l, " ", -1);
        ck_assert_uint_ge(g_strv_length(f), 6);
        Var *v = g_new0(Var, 1);
        v->width = (guint)atoi(f[2]);
        v->name = g_strdup(f[4]);
        v->value = -1;
        ck_assert_msg(!g_hash_table_contains(vcd->by_id, f[3]), "id %s declared twice", f[3]);
        g_hash_table_insert(vcd->by_id, g_strdup(f[3]), v);
      }
      if (g_str_has_prefix(l, "$enddefinitions"))
        defs = FALSE;
      continue;
    }
    if (l[0] == '\0' || g_str_has_prefix(l, "$dumpvars") || g_str_has_prefix(l, "$end"))
      continue;
    if (l[0] == '#') {
      guint64 t = g_ascii_strtoull(l + 1, NULL, 10);
      ck_assert_msg(!have_time || t > time, "time %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT,
                    t, time);
      time = t;
      have_time = TRUE;
      vcd->n_times++;
      continue;
    }
    gint64 value;
    const char *id;
    if (l[0] == 'b') {
      const char *sp = strchr(l, ' ');
      ck_assert(sp != NULL);
      id = sp + 1;
      if (l[1] == 'x')
        value = -1;
      else
        value = (gint64)g_ascii_strtoull(l + 1, NULL, 2);
    } else {
      ck_assert_msg(l[0] == '0' || l[0] == '1', "bad line '%s'", l);
      value = l[0] - '0';
      id = l + 1;
    }
    Var *v = g_hash_table_lookup(vcd->by_id, id);
    ck_assert_msg(v != NULL, "undeclared id in '%s'", l);
    gint64 old = v->value;
    v->value = value;
    if (fn)
      fn(v, old, time, user);
  }
  vcd->last_time = time;
}

typedef struct {
  GHashTable *since; /* warp name -> guint64 time its value began */
  guint64 state_cycles[16];
} StateSums;

static void
sum_states(const Var *v, gint64 old, guint64 time, gpointer user)
{
  StateSums *s = user;
  if (!g_str_has_suffix(v->name, "_state"))
    return;
  gpointer since;
  if (g_hash_table_lookup_extended(s->since, v->name, NULL, &since) && old >= 0)
    s->state_cycles[old] += time - GPOINTER_TO_SIZE(since);
  g_hash_table_insert(s->since, v->name, GSIZE_TO_POINTER(time));
}

/* The pixel of @img at (@x, @y) as 0xRRGGBB. */
static guint32
pixel(cairo_surface_t *img, int x, int y)
{
  const guint32 *row = (const guint32 *)(cairo_image_surface_get_data(img) +
                                         (gsize)y * (gsize)cairo_image_surface_get_stride(img));
  return row[x] & 0xffffff;
}

START_TEST(test_picture_shows_figure_4_7)
{
  /* the run of the Figure 4.7 timeline, as a picture: a column a cycle (100 cycles over the
   * 1240-pixel plot from x = 136), one scheduler's issue row, then warps 0-5 in rows of 16
   * pixels from y = 60; a warp's column is the colour of "selected" exactly where the text
   * timeline has it issue */
  g_autofree char *path = test_write_temp("fig.png", "");
  const char *args[] = {
      "run",   TOY,         MIX,       "--set", "warps_per_sm=6", "--set", "alpha=4",
      "--set", "groups=20", "--trace", path,    "--trace-window", "0:100", NULL};
  g_free(run_ok(args));
  cairo_surface_t *img = cairo_image_surface_create_from_png(path);
  ck_assert_int_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  ck_assert_int_eq(cairo_image_surface_get_width(img), 1400);
  g_autofree char *golden = test_source_path("tests/data/fig47-timeline.txt");
  g_autofree char *want = NULL;
  ck_assert(g_file_get_contents(golden, &want, NULL, NULL));
  const guint32 selected = 0x2ca02c, long_scoreboard = 0xd62728;
  guint issues = 0, waits = 0;
  for (guint w = 0; w < 6; w++) {
    g_autofree char *head = g_strdup_printf("\nwarp %4u ", w);
    const char *row = strstr(want, head);
    ck_assert(row != NULL);
    row += strlen(head);
    for (guint c = 0; c < 100; c++) {
      int x = 136 + (int)((c + 0.5) * 12.4), y = 60 + 16 * (int)w + 8;
      gboolean issued = row[c] == 'o' || row[c] == '*';
      guint32 got = pixel(img, x, y);
      ck_assert_msg(issued == (got == selected), "warp %u cycle %u: '%c' drawn %06x", w, c, row[c],
                    got);
      issues += issued;
      waits += row[c] == '=' && got == long_scoreboard; /* waiting for its load */
    }
  }
  /* 5 issues every 24 cycles a warp (warps 3-5 start 9 cycles late), 11 cycles of each 24 in
   * flight waiting for the load */
  ck_assert_uint_eq(issues, 115);
  ck_assert_uint_ge(waits, 6 * 4 * 11 - 3 * 11);
  cairo_surface_destroy(img);
}
END_TEST

START_TEST(test_vcd_reads_back_to_the_run_statistics)
{
  g_autofree char *path = test_write_temp("t.vcd", "");
  const char *args[] = {"run",   MAXWELL,   MIX,     "--set",     "warps_per_sm=13",
                        "--set", "alpha=3", "--set", "groups=20", "--trace",
                        path,    "--json",  NULL};
  JsonParser *p;
  JsonObject *o = run_json(args, &p);
  guint64 cycles = (guint64)json_object_get_int_member(o, "cycles");
  gint64 issued = json_object_get_int_member(json_object_get_object_member(o, "issued"), "total");
  StateSums sums = {.since = g_hash_table_new(g_str_hash, g_str_equal)};
  Vcd vcd = {0};
  read_vcd(path, &vcd, sum_states, &sums);
  ck_assert_uint_eq(vcd.last_time, cycles);
  /* close every warp's last state at the end of the run */
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init(&it, vcd.by_id);
  gint64 issued_sum = 0;
  guint warps = 0;
  while (g_hash_table_iter_next(&it, &key, &val)) {
    Var *v = val;
    if (g_str_has_suffix(v->name, "_state")) {
      warps++;
      sums.state_cycles[v->value] +=
          cycles - GPOINTER_TO_SIZE(g_hash_table_lookup(sums.since, v->name));
    }
    if (strcmp(v->name, "issued_count") == 0)
      issued_sum += v->value;
  }
  ck_assert_uint_eq(warps, 13);
  ck_assert_int_eq(issued_sum, issued);
  /* every warp-cycle in exactly one state, the same states the run counted */
  JsonObject *states = json_object_get_object_member(o, "warp_states");
  GList *names = json_object_get_members(states);
  guint64 total = 0;
  guint i = 0;
  for (GList *l = names; l; l = l->next, i++) {
    gint64 want =
        json_object_get_int_member(json_object_get_object_member(states, l->data), "warp_cycles");
    ck_assert_msg((gint64)sums.state_cycles[i] == want,
                  "%s: vcd %" G_GUINT64_FORMAT ", run %" G_GINT64_FORMAT, (char *)l->data,
                  sums.state_cycles[i], want);
    total += sums.state_cycles[i];
  }
  g_list_free(names);
  ck_assert_uint_eq(total, 13 * cycles);
  g_hash_table_destroy(sums.since);
  g_hash_table_destroy(vcd.by_id);
  g_object_unref(p);
}
END_TEST

START_TEST(test_picture_of_a_whole_gpu_shows_its_first_sm)
{
  /* 5 SMs of 64 warps: more than a picture's 256 rows, so SM 0's 64 warps under its 4
   * schedulers (16 rows of 8 pixels each); --trace-warps choosing more is refused */
  g_autofree char *path = test_write_temp("gpu.png", "");
  const char *args[] = {
      "run",   MAXWELL,    MIX,       "--set", "sm_count=5", "--set", "warps_per_sm=64",
      "--set", "groups=2", "--trace", path,    NULL};
  g_free(run_ok(args));
  cairo_surface_t *img = cairo_image_surface_create_from_png(path);
  ck_assert_int_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  /* 50 + 4 issue rows of 16 + 64 warp rows of 8 + the charts, axis and legend */
  ck_assert_int_eq(cairo_image_surface_get_height(img), (int)ceil(50 + 4 * 16 + 64 * 8 + 174));
  cairo_surface_destroy(img);
  const char *too_many[] = {"run",   MAXWELL,           MIX,     "--set",    "sm_count=5",
                            "--set", "warps_per_sm=64", "--set", "groups=2", "--trace",
                            path,    "--trace-warps",   "0-300", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_ne(test_smsim(too_many, &out, &err), 0);
  ck_assert_msg(strstr(err, "a picture shows at most 256 warps, this run has 301"), "%s", err);
}
END_TEST

START_TEST(test_gtkwave_filter_names_every_state)
{
  /* docs/warp-states.filter turns a VCD's state numbers into the run report's names */
  g_autofree char *path = test_source_path("docs/warp-states.filter");
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  GString *want = g_string_new(NULL);
  for (guint st = 0; st < SM_STATE_COUNT; st++)
    g_string_append_printf(want, "%u %s\n", st, sm_state_name(st));
  ck_assert_str_eq(text, want->str);
  g_string_free(want, TRUE);
}
END_TEST

/* A trace's state spans, summed by state name in @sums, are the run's warp-cycles in each state
 * (@o: its run --json; an empty slot, inactive, has no spans). */
static void
assert_state_spans_add_up(JsonObject *o, GHashTable *sums)
{
  JsonObject *states = json_object_get_object_member(o, "warp_states");
  GList *names = json_object_get_members(states);
  for (GList *l = names; l; l = l->next) {
    gint64 want =
        json_object_get_int_member(json_object_get_object_member(states, l->data), "warp_cycles");
    gint64 got = (gint64)GPOINTER_TO_SIZE(g_hash_table_lookup(sums, l->data));
    ck_assert_msg(got == (strcmp(l->data, "inactive") == 0 ? 0 : want),
                  "%s: trace %" G_GINT64_FORMAT ", run %" G_GINT64_FORMAT, (char *)l->data, got,
                  want);
  }
  g_list_free(names);
}

START_TEST(test_json_trace_reads_back_with_nested_tracks)
{
  g_autofree char *path = test_write_temp("t.json", "");
  const char *args[] = {
      "run",   MAXWELL,     MIX,     "--set",          "warps_per_sm=9", "--set", "alpha=2",
      "--set", "groups=15", "--set", "mov_per_load=1", "--set",          "ilp=2", "--trace",
      path,    "--json",    NULL};
  JsonParser *p;
  JsonObject *o = run_json(args, &p);
  gint64 issued = json_object_get_int_member(json_object_get_object_member(o, "issued"), "total");
  g_autoptr(JsonParser) tp = json_parser_new();
  GError *error = NULL;
  ck_assert_msg(json_parser_load_from_file(tp, path, &error), "%s", error ? error->message : "");
  JsonObject *root = json_node_get_object(json_parser_get_root(tp));
  ck_assert_str_eq(json_object_get_string_member(root, "displayTimeUnit"), "ns");
  JsonArray *ev = json_object_get_array_member(root, "traceEvents");
  gint64 slices = 0, counters = 0;
  double last_ts = -1;
  GHashTable *open_end = g_hash_table_new(g_direct_hash, g_direct_equal); /* tid -> end x 1000 */
  g_autoptr(GHashTable) state_sums = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length(ev); i++) {
    JsonObject *e = json_array_get_object_element(ev, i);
    const char *ph = json_object_get_string_member(e, "ph");
    if (!json_object_has_member(e, "ts"))
      continue;
    double ts = json_object_get_double_member(e, "ts");
    if (json_object_get_int_member(e, "pid") == 2) {
      /* a warp's state span (written when it ends): the run's warp-cycles in that state */
      ck_assert_str_eq(ph, "X");
      JsonObject *a = json_object_get_object_member(e, "args");
      const char *name = json_object_get_string_member(e, "name");
      gint64 n = json_object_get_int_member(a, "cycles");
      ck_assert_int_eq(n, (gint64)(json_object_get_double_member(e, "dur") * 1000 + 0.5));
      g_hash_table_insert(
          state_sums, (gpointer)name,
          GSIZE_TO_POINTER(GPOINTER_TO_SIZE(g_hash_table_lookup(state_sums, name)) + (gsize)n));
      continue;
    }
    ck_assert_msg(ts >= last_ts, "event %u at %g before %g", i, ts, last_ts);
    last_ts = ts;
    if (strcmp(ph, "C") == 0) {
      counters++;
      continue;
    }
    ck_assert_str_eq(ph, "X");
    slices++;
    gint64 tid = json_object_get_int_member(e, "tid");
    gint64 start = (gint64)(ts * 1000 + 0.5);
    gint64 end = start + (gint64)(json_object_get_double_member(e, "dur") * 1000 + 0.5);
    /* one thread's slices in time order never partly overlap: this writer never nests, so
     * each starts at or after the previous one's end */
    gint64 prev_end = GPOINTER_TO_SIZE(g_hash_table_lookup(open_end, GINT_TO_POINTER(tid)));
    ck_assert_msg(start >= prev_end,
                  "tid %" G_GINT64_FORMAT ": slice at %" G_GINT64_FORMAT
                  " overlaps one ending at %" G_GINT64_FORMAT,
                  tid, start, prev_end);
    g_hash_table_insert(open_end, GINT_TO_POINTER(tid), GSIZE_TO_POINTER(MAX(end, start + 1)));
  }
  ck_assert_int_eq(slices, issued);
  ck_assert(counters > 0);
  /* the state spans add up to the run's warp-cycles in each state (an empty slot has none) */
  assert_state_spans_add_up(o, state_sums);
  g_hash_table_destroy(open_end);
  g_object_unref(p);
}
END_TEST

START_TEST(test_tracing_changes_no_result)
{
  const char *formats[] = {"t.vcd", "t.json", "t.txt", "t.csv"};
  const char *plain[] = {
      "run",     MAXWELL, MIX,         "--set", "warps_per_sm=20",           "--set",
      "alpha=5", "--set", "groups=30", "--set", "memory.max_outstanding=40", "--json",
      NULL};
  g_autofree char *want = run_ok(plain);
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    g_autofree char *path = test_write_temp(formats[f], "");
    const char *traced[] = {
        "run",     MAXWELL, MIX,         "--set", "warps_per_sm=20",           "--set",
        "alpha=5", "--set", "groups=30", "--set", "memory.max_outstanding=40", "--json",
        "--trace", path,    NULL};
    g_autofree char *got = run_ok(traced);
    ck_assert_str_eq(got, want);
  }
}
END_TEST

START_TEST(test_csv_has_one_row_per_instruction)
{
  const char *args[] = {"run", MAXWELL, MIX, "--set", "warps_per_sm=3", "--set", "groups=4", NULL};
  g_autofree char *text = trace_text("t.csv", args);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  ck_assert_str_eq(lines[0],
                   "cycle,scheduler,warp,pc,op,unit,completion_cycle,bank_passes,active_lanes");
  ck_assert_uint_eq(g_strv_length(lines), 1 + 3 * 4 * 9 + 1);
  ck_assert(g_str_has_prefix(lines[1], "0,0,0,2,LDG,ldst,368"));
}
END_TEST

START_TEST(test_states_csv_adds_up_to_the_runs_warp_states)
{
  /* one row per span of a warp in one state: per state, the run's warp-cycles (an empty slot
   * has no rows); spans of one warp never overlap */
  g_autofree char *path = test_write_temp("t.states.csv", "");
  const char *args[] = {"run",   MAXWELL,   MIX,     "--set",     "warps_per_sm=6",
                        "--set", "alpha=3", "--set", "groups=10", "--trace",
                        path,    "--json",  NULL};
  JsonParser *p;
  JsonObject *o = run_json(args, &p);
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  ck_assert_str_eq(lines[0], "warp,state,from_cycle,to_cycle,cycles");
  g_autoptr(GHashTable) sums = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  guint64 last_end[6] = {0};
  for (guint i = 1; lines[i] && *lines[i]; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    ck_assert_uint_eq(g_strv_length(f), 5);
    guint w = (guint)atoi(f[0]);
    guint64 a = g_ascii_strtoull(f[2], NULL, 10), b = g_ascii_strtoull(f[3], NULL, 10);
    ck_assert_uint_lt(w, 6);
    ck_assert_uint_ge(a, last_end[w]);
    ck_assert_uint_eq(g_ascii_strtoull(f[4], NULL, 10), b - a);
    last_end[w] = b;
    gsize have = GPOINTER_TO_SIZE(g_hash_table_lookup(sums, f[1]));
    g_hash_table_replace(sums, g_strdup(f[1]), GSIZE_TO_POINTER(have + (gsize)(b - a)));
  }
  assert_state_spans_add_up(o, sums);
  g_object_unref(p);
}
END_TEST

START_TEST(test_warps_are_numbered_sm_by_sm)
{
  /* 2 SMs of 4 schedulers, 6 warps each: 8 slots an SM, SM 1's warps are 8-13 on its
   * schedulers 4-7, warp w on scheduler 4 * (w / 8) + w % 4 */
  const char *args[] = {"run",   MAXWELL,          MIX,     "--set",    "sm_count=2",
                        "--set", "warps_per_sm=6", "--set", "groups=1", NULL};
  g_autofree char *text = trace_text("sms.csv", args);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint seen = 0, rows = 0;
  for (guint i = 1; lines[i] && *lines[i]; i++, rows++) {
    guint64 sched = 0, warp = 0;
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    ck_assert(g_ascii_string_to_unsigned(f[1], 10, 0, 7, &sched, NULL));
    ck_assert(g_ascii_string_to_unsigned(f[2], 10, 0, 15, &warp, NULL));
    ck_assert_uint_eq(sched, 4 * (warp / 8) + warp % 4);
    ck_assert_uint_lt(warp % 8, 6);
    seen |= 1u << warp;
  }
  ck_assert_uint_eq(seen, 0x3f3fu);
  ck_assert_uint_eq(rows, 2 * 6 * 9);
}
END_TEST

START_TEST(test_csv_shows_bank_passes)
{
  /* lanes 4 words apart: 4 passes, the warp's own 2 cycles apart (the H100's
   * pass_latency_cycles), the last's data there 6 cycles after the first; the chain's next LDS
   * issues when the result is back 23 cycles later (29), a CUDA core could read it at
   * 6 + 25 = 31 (the completion shown) */
  const char *args[] = {"run",
                        "config/gpus/h100.yaml",
                        "isa/kernels/banks.yaml",
                        "--set",
                        "stride=4",
                        "--set",
                        "iters=1",
                        NULL};
  g_autofree char *text = trace_text("banks.csv", args);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  ck_assert_str_eq(lines[1], "0,0,0,1,LDS,ldst,31,4,0xffffffff");
  ck_assert_str_eq(lines[2], "29,0,0,2,LDS,ldst,60,4,0xffffffff");
}
END_TEST

START_TEST(test_text_timeline_fits_a_long_run_in_columns)
{
  /* 8 warps on the H100, each with one load in flight at a time: a whole run of 13 183 cycles
   * in 103 columns of 128 cycles, every warp long_scoreboard (issuing now and then), and 8
   * loads in flight on the mean, Little's law's 8 warps x 1 */
  const char *args[] = {
      "run", "config/gpus/h100.yaml", MIX, "--set", "warps_per_sm=8", "--set", "groups=16", NULL};
  g_autofree char *text = trace_text("h100.txt", args);
  g_autofree char *golden = test_source_path("tests/data/h100-timeline.txt");
  g_autofree char *want = NULL;
  ck_assert(g_file_get_contents(golden, &want, NULL, NULL));
  ck_assert_str_eq(text, want);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  ck_assert_str_eq(lines[0], "# mix on NVIDIA H100 SXM (Hopper): cycles 0 to 13183, 128 cycles a "
                             "column");
  ck_assert(g_str_has_suffix(lines[1], "lowercase: it also issued in them): L long_scoreboard"));
  guint eights = 0, issued = 0;
  for (guint i = 0; lines[i]; i++) {
    if (g_str_has_prefix(lines[i], "warp ")) {
      ck_assert_uint_eq(strlen(lines[i]), 10 + 103);
      for (const char *c = lines[i] + 10; *c; c++) {
        ck_assert_msg(*c == 'L' || *c == 'l' || *c == ' ', "%s", lines[i]);
        issued += *c == 'l';
      }
    }
    if (g_str_has_prefix(lines[i], "memory    "))
      for (const char *c = lines[i] + 10; *c; c++)
        eights += *c == '8';
  }
  ck_assert_uint_ge(eights, 70);
  ck_assert_uint_ge(issued, 8 * 16); /* each warp's 16 groups */
  /* --trace-scale: 1000 cycles a column */
  const char *scaled[] = {
      "run",       "config/gpus/h100.yaml", MIX,    "--set", "warps_per_sm=8", "--set",
      "groups=16", "--trace-scale",         "1000", NULL};
  g_autofree char *text2 = trace_text("h100s.txt", scaled);
  ck_assert_msg(g_str_has_prefix(text2, "# mix on NVIDIA H100 SXM (Hopper): cycles 0 to 13183, "
                                        "1000 cycles a column\n"),
                "%s", text2);
  ck_assert_msg(strstr(text2, "\ncycle     0         10000\n"), "%s", text2);
}
END_TEST

START_TEST(test_text_timeline_shows_active_lanes)
{
  /* two ways: the first path runs with the 16 even lanes ('+', lanes 'g' = 16) up to BSYNC;
   * the other 16 branched straight to it, so it issues once with all 32 ('*', '#') and they go
   * on together after the preset's 20 cycles of BSYNC (where nothing of the warp runs, its
   * state: W, waiting a fixed latency) */
  const char *args[] = {"run",
                        "config/gpus/h100.yaml",
                        "isa/kernels/divergence.yaml",
                        "--set",
                        "ways=2",
                        "--set",
                        "work=8",
                        "--set",
                        "iters=1",
                        "--trace-window",
                        "130:200",
                        NULL};
  g_autofree char *text = trace_text("div.txt", args);
  ck_assert_msg(
      strstr(
          text,
          "warp    0 WW++---+---+---+---+---+---+---+*---WWWWWWWWWWWWWWWWW**---WWWW***--**-\n"
          "    lanes   gg   g   g   g   g   g   g   g#                    ##       ###  ## \n") !=
          NULL,
      "%s", text);
  /* a run without divergence has no lanes rows */
  const char *plain[] = {"run", MAXWELL, MIX, "--set", "warps_per_sm=2", NULL};
  g_autofree char *t2 = trace_text("plain.txt", plain);
  ck_assert(strstr(t2, "lanes") == NULL);
}
END_TEST

START_TEST(test_size_limit_and_bad_paths_are_clean_errors)
{
  g_autofree char *path = test_write_temp("big.json", "");
  g_unlink(path);
  const char *big[] = {"run",   MAXWELL,      MIX,       "--set", "warps_per_sm=64",
                       "--set", "groups=400", "--trace", path,    "--trace-limit-mb",
                       "1",     NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(big, &out, &err), 2);
  ck_assert_msg(strstr(err, "larger than 1 MB; stopped") != NULL, "%s", err);
  ck_assert(!g_file_test(path, G_FILE_TEST_EXISTS));
  g_autofree char *dir = g_path_get_dirname(path);
  GDir *d = g_dir_open(dir, 0, NULL);
  ck_assert(g_dir_read_name(d) == NULL); /* no temporary file left behind */
  g_dir_close(d);
  struct {
    const char *args[12];
    const char *expect;
  } cases[] = {
      {{"run", MAXWELL, MIX, "--trace", "t.pdf", NULL},
       "must end in .txt, .vcd, .json, .csv, .png or .svg"},
      {{"run", MAXWELL, MIX, "--trace", "t.vcd", "--trace-window", "9:3", NULL},
       "--trace-window 9:3: expected A:B"},
      {{"run", MAXWELL, MIX, "--trace", "t.vcd", "--trace-warps", "1-x", NULL},
       "--trace-warps 1-x: expected"},
      {{"run", MAXWELL, MIX, "--trace-window", "0:10", NULL}, "need --trace FILE"},
  };
  /* an output that cannot be written is exit status 1, bad input 2 */
  const char *nodir[] = {"run", MAXWELL, MIX, "--trace", "/no/such/dir/t.vcd", NULL};
  g_autofree char *o1 = NULL, *e1 = NULL;
  ck_assert_int_eq(test_smsim(nodir, &o1, &e1), 1);
  ck_assert_msg(strstr(e1, "t.vcd: cannot write") != NULL, "%s", e1);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *o = NULL, *e = NULL;
    ck_assert_int_eq(test_smsim(cases[i].args, &o, &e), 2);
    ck_assert_msg(strstr(e, cases[i].expect) != NULL, "expected '%s' in '%s'", cases[i].expect, e);
  }
}
END_TEST

START_TEST(test_window_and_warps_bound_the_trace)
{
  g_autofree char *all = test_write_temp("all.csv", "");
  g_autofree char *some = test_write_temp("some.csv", "");
  const char *a[] = {"run",   MAXWELL,     MIX,       "--set", "warps_per_sm=8",
                     "--set", "groups=10", "--trace", all,     NULL};
  const char *b[] = {"run",   MAXWELL,          MIX,        "--set", "warps_per_sm=8",
                     "--set", "groups=10",      "--trace",  some,    "--trace-warps",
                     "1,5-6", "--trace-window", "400:2000", NULL};
  g_free(run_ok(a));
  g_free(run_ok(b));
  g_autofree char *ta = NULL, *tb = NULL;
  ck_assert(g_file_get_contents(all, &ta, NULL, NULL) &&
            g_file_get_contents(some, &tb, NULL, NULL));
  g_auto(GStrv) la = g_strsplit(ta, "\n", -1), lb = g_strsplit(tb, "\n", -1);
  guint expect = 0;
  for (guint i = 1; la[i] && la[i][0]; i++) {
    g_auto(GStrv) f = g_strsplit(la[i], ",", -1);
    guint64 cycle = g_ascii_strtoull(f[0], NULL, 10);
    guint warp = (guint)atoi(f[2]);
    expect += (warp == 1 || warp == 5 || warp == 6) && cycle >= 400 && cycle < 2000;
  }
  ck_assert_uint_gt(expect, 0);
  ck_assert_uint_eq(g_strv_length(lb) - 2, expect);
}
END_TEST

static Suite *
trace_suite(void)
{
  Suite *s = suite_create("trace");
  TCase *tc = tcase_create("writers");
  tcase_add_test(tc, test_text_timeline_matches_figure_4_7);
  tcase_add_test(tc, test_picture_shows_figure_4_7);
  tcase_add_test(tc, test_gtkwave_filter_names_every_state);
  tcase_add_test(tc, test_picture_of_a_whole_gpu_shows_its_first_sm);
  tcase_add_test(tc, test_text_timeline_fits_a_long_run_in_columns);
  tcase_add_test(tc, test_vcd_reads_back_to_the_run_statistics);
  tcase_add_test(tc, test_json_trace_reads_back_with_nested_tracks);
  tcase_add_test(tc, test_csv_has_one_row_per_instruction);
  tcase_add_test(tc, test_states_csv_adds_up_to_the_runs_warp_states);
  tcase_add_test(tc, test_csv_shows_bank_passes);
  tcase_add_test(tc, test_warps_are_numbered_sm_by_sm);
  tcase_add_test(tc, test_text_timeline_shows_active_lanes);
  suite_add_tcase(s, tc);
  TCase *tb = tcase_create("behaviour");
  tcase_add_test(tb, test_tracing_changes_no_result);
  tcase_add_test(tb, test_size_limit_and_bad_paths_are_clean_errors);
  tcase_add_test(tb, test_window_and_warps_bound_the_trace);
  suite_add_tcase(s, tb);
  return s;
}

int
main(void)
{
  return test_run_suite(trace_suite());
}
