/*
 * jtrace.h — a trace written as JSON text in a test, then loaded into the
 * model (the scale tests build their hostile shapes this way):
 *
 *   jbegin();                         // {"traceEvents":[
 *   sbuf_addf(&J, "...event...");     // the test's own event writers
 *   T_TRUE(jload(&t) == GF_OK);       // ]} and trace_load_mem; J released
 */
#ifndef GF_JTRACE_H
#define GF_JTRACE_H

#include "base/sbuf.h"
#include "trace/model/trace.h"

#include <stdio.h>

static struct sbuf J;

static inline void jbegin(void)
{
	sbuf_init(&J, 1 << 16);
	sbuf_addstr(&J, "{\"traceEvents\":[\n");
}

/* Closes the array, loads J into t (a load error is printed) and releases J. */
static inline int jload(struct trace *t)
{
	sbuf_addstr(&J, "]}");
	struct sbuf err = SBUF_INIT;
	trace_init(t, NULL);
	int rc = trace_load_mem(t, J.buf, J.len, "t.json", NULL, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.buf);
	sbuf_release(&err);
	sbuf_release(&J);
	return rc;
}

#endif
