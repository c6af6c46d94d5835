/* The stream assembler: SASS-like text, repeat/for/if, parameters, and its errors. */
#include <check.h>
#include <string.h>

#include "asm.h"

static GHashTable *
params(const char *const *kv)
{
  GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; kv && kv[i]; i += 2)
    g_hash_table_insert(h, g_strdup(kv[i]), g_strdup(kv[i + 1]));
  return h;
}

static IsaProgram *
assemble(const char *text, const char *const *kv)
{
  g_autoptr(GHashTable) p = params(kv);
  GError *error = NULL;
  guint line = 0, col = 0;
  IsaProgram *prog = isa_asm_parse(text, p, &line, &col, &error);
  ck_assert_msg(prog != NULL, "%u:%u: %s", line, col, error ? error->message : "");
  return prog;
}

/* Returns the error as "line:col: message". */
static char *
assemble_error(const char *text, const char *const *kv)
{
  g_autoptr(GHashTable) p = params(kv);
  GError *error = NULL;
  guint line = 0, col = 0;
  IsaProgram *prog = isa_asm_parse(text, p, &line, &col, &error);
  ck_assert_msg(prog == NULL, "'%s' assembled but should not", text);
  char *msg = g_strdup_printf("%u:%u: %s", line, col, error->message);
  g_error_free(error);
  return msg;
}

START_TEST(test_sass_lines_become_instructions_with_operands)
{
  g_autoptr(IsaProgram) p = assemble("LDG R1, [R1]\nFADD R1, R1, R2\nMUFU.RSQ R3, R1\n"
                                     "STG [R4], R1; FFMA R5, R1, 2.0, RZ\n",
                                     NULL);
  ck_assert_uint_eq(p->n_insns, 5);
  ck_assert_uint_eq(p->dynamic_count, 5);
  ck_assert_uint_eq(p->insns[0].op, ISA_OP_LDG);
  ck_assert_uint_eq(p->insns[0].dst, p->insns[0].src[0]);
  ck_assert_uint_eq(p->insns[1].nsrc, 2);
  ck_assert_uint_eq(p->insns[2].op, ISA_OP_MUFU_RSQ);
  ck_assert_uint_eq(p->insns[3].dst, ISA_NO_REG);
  ck_assert_uint_eq(p->insns[3].nsrc, 2);
  ck_assert_uint_eq(p->insns[4].nsrc, 1); /* immediate and RZ are not dependencies */
  ck_assert_uint_eq(p->n_regs, 5);
  ck_assert_str_eq(p->levels[p->insns[0].level], "dram");
  g_autofree char *text = isa_insn_format(p, &p->insns[0]);
  ck_assert_str_eq(text, "LDG R1, [R1] pattern=coalesced level=dram");
}
END_TEST

START_TEST(test_repeat_is_a_loop_and_for_unrolls)
{
  const char *kv[] = {"n", "3", "k", "4", NULL};
  g_autoptr(IsaProgram) p = assemble(
      "repeat $n * 10 {\n  LDG R1, [R1]\n  for c in 1 .. $k { FADD R{$c}, R{$c}, R0 }\n}\n", kv);
  /* LOOP, LDG, 4 FADD, END */
  ck_assert_uint_eq(p->n_insns, 7);
  ck_assert_uint_eq(p->insns[0].kind, ISA_INSN_LOOP);
  ck_assert_uint_eq(p->insns[0].iterations, 30);
  ck_assert_uint_eq(p->insns[0].partner, 6);
  ck_assert_uint_eq(p->insns[6].partner, 0);
  ck_assert_uint_eq(p->dynamic_count, 30 * 5);
  ck_assert_str_eq(p->reg_names[p->insns[5].dst], "R4");
}
END_TEST

START_TEST(test_if_else_chooses_at_assembly_time)
{
  const char *text = "if $other == none { FADD R1, R1, R2 }\n"
                     "else if $other == LDS { LDS R1, [R1] }\n"
                     "else { $other R1, R1 }\n";
  const char *a[] = {"other", "none", NULL};
  const char *b[] = {"other", "LDS", NULL};
  const char *c[] = {"other", "MUFU.EX2", NULL};
  g_autoptr(IsaProgram) pa = assemble(text, a);
  g_autoptr(IsaProgram) pb = assemble(text, b);
  g_autoptr(IsaProgram) pc = assemble(text, c);
  ck_assert_uint_eq(pa->insns[0].op, ISA_OP_FADD);
  ck_assert_uint_eq(pb->insns[0].op, ISA_OP_LDS);
  ck_assert_uint_eq(pc->insns[0].op, ISA_OP_MUFU_EX2);
  ck_assert_uint_eq(pc->n_insns, 1);
}
END_TEST

START_TEST(test_patterns_and_levels_are_attributes)
{
  const char *kv[] = {"p", "stride2", NULL};
  g_autoptr(IsaProgram) p =
      assemble("LDG R1, [R1] pattern=$p level=l2\nLDG R2, [R2] pattern=random\n", kv);
  ck_assert_uint_eq(p->insns[0].pattern, ISA_PATTERN_STRIDE);
  ck_assert_uint_eq(p->insns[0].stride, 2);
  ck_assert_str_eq(p->levels[p->insns[0].level], "l2");
  ck_assert_uint_eq(p->insns[1].pattern, ISA_PATTERN_RANDOM);
  ck_assert_str_eq(p->levels[p->insns[1].level], "dram");
}
END_TEST

START_TEST(test_expressions)
{
  const char *kv[] = {"alpha", "0.25", "x", "inf", NULL};
  g_autoptr(GHashTable) p = params(kv);
  double v;
  char *s = NULL;
  ck_assert(isa_asm_eval("$alpha > 0 && $alpha < 1 ? round(1 / $alpha) : 1", p, &v, &s, NULL));
  ck_assert_double_eq(v, 4);
  ck_assert(isa_asm_eval("max(2, 3) * (1 + 2) % 5", p, &v, &s, NULL));
  ck_assert_double_eq(v, 4);
  ck_assert(isa_asm_eval("$x > 1e9", p, &v, &s, NULL));
  ck_assert_double_eq(v, 1);
  ck_assert(isa_asm_eval("none", p, &v, &s, NULL));
  ck_assert_str_eq(s, "none");
  g_free(s);
}
END_TEST

static const struct {
  const char *text;
  const char *error;
} bad_streams[] = {
    {"FOO R1, R2",
     "1:1: unknown op 'FOO' (ops: FADD, FMUL, FFMA, IADD, IMAD, IADD3, ISETP, MOV, "
     "NOP, MUFU.RSQ, MUFU.RCP, MUFU.EX2, MUFU.LG2, MUFU.SIN, MUFU.COS, LDG, STG, LDS, "
     "STS, LDGSTS, LDGDEPBAR, DEPBAR.LE, BAR.SYNC, BRA, BSSY, BSYNC, CS2R, S2R, MEMBAR)"},
    {"FADDD R1, R2", "1:1: unknown op 'FADDD'; did you mean 'FADD'? (ops: FADD, FMUL, FFMA, "
                     "IADD, IMAD, IADD3, ISETP, MOV, NOP, MUFU.RSQ, MUFU.RCP, MUFU.EX2, MUFU.LG2, "
                     "MUFU.SIN, MUFU.COS, LDG, STG, LDS, STS, LDGSTS, LDGDEPBAR, DEPBAR.LE, "
                     "BAR.SYNC, BRA, BSSY, BSYNC, CS2R, S2R, MEMBAR)"},
    {"@R1 BRA", "1:2: expected a predicate (P0..P6 or PT) after '@', found 'R1'"},
    {"ISETP P1, R1, R2; @P1 FFMA R1, R2, R3, R4", "1:23: FFMA reads three registers already: it "
                                                  "cannot also be "
                                                  "guarded"},
    {"ISETP P7, R1, R2", "1:7: expected a register, found 'P7'"},
    {"repeat ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "1 { NOP }",
     "1:264: expressions and blocks nest deeper than 256 levels"},
    {"FADD R1, R1", "1:12: expected ',', found 'end of stream'"},
    {"repeat 3\n{ NOP }", "1:9: expected '{', found 'end of line'"},
    {"repeat 3 {\n FADD R1, R1, R2\n", "1:10: '{' is never closed"},
    {"FADD R1, R1, R2\n}\n", "2:1: '}' without a matching '{'"},
    {"repeat 2.5 { FADD R1, R1, R2 }", "1:8: repeat count must be a whole number from 0 to "
                                       "4294967295, got 2.5"},
    {"repeat $nope { NOP }", "1:8: unknown parameter $nope"},
    {"FADD R1, R999, R2", "1:10: register R999 out of range (R0..R253)"},
    {"LDG R1, [R1] pattern=zigzag", "1:22: unknown access pattern 'zigzag' (coalesced, strideN, "
                                    "broadcast, random)"},
    {"LDS R1, [R1] pattern=stride65", "1:22: stride in 'stride65' must be 1..64"},
    {"LDS R1, [R1] stride=2.5", "1:21: stride must be a whole number from 0 to 64"},
    {"LDS R1, [R1] level=l2",
     "1:14: unknown attribute 'level' (shared memory ops take pattern, stride)"},
    {"STG R1, [R2]", "1:5: STG writes no register: its form is STG [Ra], Rb (address, data)"},
    {"STS R1, [R2]", "1:5: STS writes no register: its form is STS [Ra], Rb (address, data)"},
    {"LDGSTS R1, [R2]", "1:8: LDGSTS writes no register: its form is LDGSTS [Rshared], "
                        "[Rglobal]"},
    {"LDG.256 R1, [R1]", "1:1: LDG cannot access '.256' per lane: widths are .32, .64, .128"},
    {"FADD.64 R1, R1, R2", "1:1: FADD takes no access width ('.64'): only memory ops do"},
    {"DEPBAR.LE SB0, 64", "1:16: DEPBAR.LE's count of outstanding groups must be a whole number "
                          "from 0 to 63, got 64"},
    {"BSYNC B0", "1:1: BSYNC B0 without a matching BSSY B0"},
    {"BRA nowhere",
     "1:5: unknown label 'nowhere' (a branch sees the labels of its own repeat body)"},
    {"@P1 FADD R1, R1, R2", "1:2: P1 is used before an ISETP sets it"},
    {"BSSY B0, L; BSSY B1, M; BSYNC B0", "1:25: BSYNC B0 closes the wrong region: the innermost "
                                         "open one is BSSY B1's (regions must nest)"},
    {"BSSY B0, L; NOP", "1:1: BSSY B0 is never closed by a BSYNC B0"},
    {"repeat 2 { BSSY B0, L }; L: BSYNC B0", "1:23: BSSY B0 is not closed by a BSYNC B0 in its "
                                             "block"},
    {"L: NOP; BRA L", "1:13: label 'L' is not after the branch: branches go forward (a loop is a "
                      "repeat block)"},
    {"ISETP P0, $lane < 4; @P0 BRA L; L: NOP", "1:30: a guarded branch to 'L' can diverge: it "
                                               "needs an enclosing BSSY ... BSYNC where its "
                                               "lanes reconverge (or a predicate the same in "
                                               "every lane)"},
    {"ISETP P0, chance(0.5); @P0 BRA L; L: NOP", "1:32: a guarded branch to 'L' can diverge: it "
                                                 "needs an enclosing BSSY ... BSYNC where its "
                                                 "lanes reconverge (or a predicate the same in "
                                                 "every lane)"},
    {"ISETP P0, $lane < 4; BSSY B0, L; @P0 BRA M; L: BSYNC B0; M: NOP",
     "1:42: label 'M' is past the BSYNC B0 of the branch's region: its lanes could not "
     "reconverge"},
    {"BSSY B0, M; M: NOP; L: BSYNC B0", "1:10: label 'M' must mark this region's BSYNC B0 (where "
                                        "its lanes reconverge)"},
    {"L: NOP; L: NOP", "1:9: label 'L' is already defined in this block"},
    {"ISETP R1, $lane < 3", "1:1: ISETP writes a predicate (P0..P6), not R1"},
    {"ISETP P0, chance(2)", "1:17: chance(p) needs a probability from 0 to 1, got 2"},
    {"DEPBAR.LE SB1, 2", "1:11: DEPBAR.LE waits on SB0 (the asynchronous-copy groups), found "
                         "'SB1'"},
    {"FADD R1, R1, R2 level=l2", "1:17: FADD takes no attribute 'level' (only memory ops do)"},
    {"repeat 0 { FADD R1, R1, R2 }", NULL}, /* fine: but assembles */
    {"# only a comment\n", "1:1: the stream has no instructions"},
    {"else { NOP }", "1:1: 'else' without 'if'"},
    {"repeat 1/0 { NOP }", "1:8: repeat count must be a whole number from 0 to 4294967295, got "
                           "inf"},
};

START_TEST(test_predicates_guards_and_loop_overhead)
{
  g_autoptr(IsaProgram) p =
      assemble("repeat 4 {\n  IADD3 R6, R6, -1, RZ\n  ISETP P1, R6, RZ\n  @P1 BRA\n}\n"
               "@!P1 FADD R1, R1, R2\n@PT BRA\n",
               NULL);
  ck_assert_uint_eq(p->dynamic_count, 4 * 3 + 2);
  const IsaInsn *isetp = &p->insns[2], *bra = &p->insns[3], *fadd = &p->insns[5];
  ck_assert_uint_eq(isetp->op, ISA_OP_ISETP);
  ck_assert_uint_eq(bra->op, ISA_OP_BRA);
  /* the guard is a source: the branch waits for the predicate ISETP writes */
  ck_assert_uint_eq(bra->nsrc, 1);
  ck_assert_uint_eq(bra->src[0], isetp->dst);
  ck_assert_uint_eq(bra->guard, ISA_GUARD_IF);
  ck_assert_uint_eq(fadd->nsrc, 3);
  ck_assert_uint_eq(fadd->guard, ISA_GUARD_UNLESS);
  ck_assert_uint_eq(p->insns[6].nsrc, 0); /* PT is always true: no dependency */
  g_autofree char *b = isa_insn_format(p, bra);
  ck_assert_str_eq(b, "@P1 BRA");
  g_autofree char *f = isa_insn_format(p, fadd);
  ck_assert_str_eq(f, "@!P1 FADD R1, R1, R2");
  g_autofree char *i = isa_insn_format(p, isetp);
  ck_assert_str_eq(i, "ISETP P1, R6");
}
END_TEST

START_TEST(test_widths_stores_and_async_copies)
{
  g_autoptr(IsaProgram) p =
      assemble("LDG.128 R1, [R2] pattern=stride2 level=l2\nSTG.64 [R2], R1\nSTS [R3], R1 "
               "pattern=broadcast\nLDS.32 R4, [R3] pattern=stride33\nLDGSTS.128 [R3], [R2]\n"
               "LDGDEPBAR\nDEPBAR.LE SB0, 3\n",
               NULL);
  ck_assert_uint_eq(p->n_insns, 7);
  ck_assert_uint_eq(p->insns[0].width, 16);
  ck_assert_uint_eq(p->insns[0].stride, 2);
  ck_assert_uint_eq(p->insns[1].width, 8);
  ck_assert_uint_eq(p->insns[1].dst, ISA_NO_REG);
  ck_assert_uint_eq(p->insns[1].nsrc, 2); /* a store waits for its address and its data */
  ck_assert_uint_eq(p->insns[2].pattern, ISA_PATTERN_BROADCAST);
  ck_assert_uint_eq(p->insns[3].width, 4);
  ck_assert_uint_eq(p->insns[3].stride, 33);
  ck_assert_uint_eq(p->insns[4].nsrc, 2);
  ck_assert_uint_eq(p->insns[4].dst, ISA_NO_REG);
  ck_assert_uint_eq(p->insns[6].groups, 3);
  static const char *const text[] = {"LDG.128 R1, [R2] pattern=stride2 level=l2",
                                     "STG.64 [R2], R1 pattern=coalesced level=dram",
                                     "STS [R3], R1 pattern=broadcast",
                                     "LDS R4, [R3] pattern=stride33",
                                     "LDGSTS.128 [R3], [R2] pattern=coalesced level=dram",
                                     "LDGDEPBAR",
                                     "DEPBAR.LE SB0, 3"};
  for (guint i = 0; i < G_N_ELEMENTS(text); i++) {
    g_autofree char *f = isa_insn_format(p, &p->insns[i]);
    ck_assert_str_eq(f, text[i]);
  }
}
END_TEST

START_TEST(test_lane_predicates_labels_and_regions)
{
  g_autoptr(IsaProgram) p = assemble(
      "ISETP P0, $lane % 4 == 1\nBSSY B0, J\n@P0 BRA J\nNOP\nJ: BSYNC B0\n"
      "ISETP P1, chance(0.25)\nfor k in 1 .. 2 { BSSY B1, K; @!P1 BRA K; NOP; K: BSYNC B1 }\n"
      "@!PT BRA\n",
      NULL);
  ck_assert(p->simt);
  ck_assert_uint_eq(p->insns[0].pattern, ISA_PRED_LANES);
  ck_assert_uint_eq(p->insns[0].lanes, 0x22222222u);
  ck_assert_uint_eq(p->insns[1].sync, 4); /* BSSY -> its BSYNC */
  ck_assert_uint_eq(p->insns[4].sync, 1);
  ck_assert_uint_eq(p->insns[2].labelled, 1); /* a branch with a label, to the BSYNC */
  ck_assert_uint_eq(p->insns[2].target, 4);
  ck_assert_uint_eq(p->insns[5].pattern, ISA_PRED_CHANCE);
  ck_assert_uint_eq(p->insns[5].chance, 1u << 30);
  /* each unrolled iteration has its own label K */
  ck_assert_uint_eq(p->insns[7].target, 9);
  ck_assert_uint_eq(p->insns[11].target, 13);
  ck_assert_uint_eq(p->insns[14].guard, ISA_GUARD_NEVER);
  g_autofree char *f0 = isa_insn_format(p, &p->insns[0]);
  ck_assert_str_eq(f0, "ISETP P0, lanes 0x22222222");
  g_autofree char *f2 = isa_insn_format(p, &p->insns[2]);
  ck_assert_str_eq(f2, "@P0 BRA @4");
  g_autofree char *f14 = isa_insn_format(p, &p->insns[14]);
  ck_assert_str_eq(f14, "@!PT BRA");
  /* without any of it, no per-lane state is needed */
  g_autoptr(IsaProgram) q = assemble("ISETP P0, R1, R2\n@P0 FADD R1, R1, R2\n", NULL);
  ck_assert(!q->simt);
}
END_TEST

START_TEST(test_bad_streams_give_positioned_errors)
{
  for (guint i = 0; i < G_N_ELEMENTS(bad_streams); i++) {
    if (bad_streams[i].error == NULL) {
      g_autoptr(IsaProgram) p = assemble(bad_streams[i].text, NULL);
      ck_assert_uint_eq(p->dynamic_count, 0);
      continue;
    }
    g_autofree char *msg = assemble_error(bad_streams[i].text, NULL);
    ck_assert_str_eq(msg, bad_streams[i].error);
  }
}
END_TEST

static Suite *
asm_suite(void)
{
  Suite *s = suite_create("asm");
  TCase *tc = tcase_create("assemble");
  tcase_add_test(tc, test_sass_lines_become_instructions_with_operands);
  tcase_add_test(tc, test_repeat_is_a_loop_and_for_unrolls);
  tcase_add_test(tc, test_if_else_chooses_at_assembly_time);
  tcase_add_test(tc, test_patterns_and_levels_are_attributes);
  tcase_add_test(tc, test_expressions);
  tcase_add_test(tc, test_predicates_guards_and_loop_overhead);
  tcase_add_test(tc, test_widths_stores_and_async_copies);
  tcase_add_test(tc, test_lane_predicates_labels_and_regions);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("errors");
  tcase_add_test(te, test_bad_streams_give_positioned_errors);
  suite_add_tcase(s, te);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(asm_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
