/* What the reader's files share (parse.c, operand.c); not for use outside isa/sass/. */
#pragma once

#include "sass.h"

#define SASS_ERROR g_quark_from_static_string("sass-error")

/* where the reader is, for messages "PATH:LINE: ..." */
typedef struct {
  const char *path;
  guint line;
  GError **error;
} SassCtx;

/* Sets "PATH:LINE: message" and returns FALSE. */
gboolean sass_fail(SassCtx *c, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* A decimal number from 0 to @max, the whole of @s. */
gboolean sass_parse_uint(const char *s, guint max, guint *out);
/* One operand's text into @o (labels are the caller's). */
gboolean sass_parse_operand(SassCtx *c, const char *text, SassOperand *o);
/* "A, [B, C], D" at top-level commas; a top-level space also separates ("R4 0x0"). */
GPtrArray *sass_split_operands(const char *s);
