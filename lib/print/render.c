/* SPDX-License-Identifier: MIT */
/* render.c - the table of the report's forms (see render.h). */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "print/htmlrep.h"
#include "print/mdrep.h"
#include "print/render.h"
#include "report/report.h"

/* A form of the report: its renderer file, and one line here. */
static const struct render_ops renderers[] = {
	{ "html", "one self-contained HTML page with pictures (inline SVG, no network; docs/html.md)",
	  htmlrep_supported, htmlrep_write },
	{ "md", "a Markdown summary: the headline tables and every loss (CI logs, tickets)",
	  mdrep_supported, mdrep_write },
};

#define NR_RENDERERS (sizeof(renderers) / sizeof(renderers[0]))

const struct render_ops *render_find(const char *name)
{
	for (size_t i = 0; name && i < NR_RENDERERS; i++)
		if (!strcmp(name, renderers[i].name))
			return &renderers[i];
	return NULL;
}

size_t render_all(const struct render_ops *const **out)
{
	static const struct render_ops *const list[] = { &renderers[0], &renderers[1] };
	_Static_assert(sizeof(list) / sizeof(list[0]) == NR_RENDERERS, "every renderer listed");
	*out = list;
	return NR_RENDERERS;
}

const char *render_names(char *buf, size_t len)
{
	size_t k = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NR_RENDERERS && k < len; i++) {
		int n = snprintf(buf + k, len - k, "%s%s", i ? ", " : "", renderers[i].name);
		if (n < 0)
			break;
		k += (size_t)n;
	}
	return buf;
}

int render_write(const struct render_ops *r, FILE *f, struct json_object *doc)
{
	if (!r || !doc || !json_object_is_type(doc, json_type_object) || !r->supported(report_schema(doc)))
		return -EINVAL;
	return r->write(f, doc);
}

const char *render_strerror(const struct render_ops *r, int rc, char *buf, size_t len)
{
	switch (rc) {
	case 0:
		snprintf(buf, len, "no error");
		break;
	case -EINVAL:
		snprintf(buf, len, "not a document with a%s %s form (latscope.dtl-report/1, latscope.hist/1, "
			 "latscope.osnoise/1)", r && r->name[0] == 'h' ? "n" : "", r ? r->name : "?");
		break;
	case -EIO:
		snprintf(buf, len, "write error");
		break;
	case -ENOMEM:
		snprintf(buf, len, "out of memory");
		break;
	default:
		snprintf(buf, len, "error %d", rc);
	}
	return buf;
}
