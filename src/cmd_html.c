/* SPDX-License-Identifier: MIT */
/* cmd_html.c - `latscope html`: the HTML page of a saved latscope JSON document. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "jsonout.h"
#include "print/htmlrep.h"

#define HTML_MAX_INPUT (256u << 20)	/* the largest document read */

struct html_params {
	const char *input, *output;
	bool force;
};

static const struct cli_opt html_opts[] = {
	CLI_INPUT(struct html_params, input, "the JSON document (- = standard input)"),
	CLI_OUTPUT(struct html_params, output, "the HTML page to write"),
	CLI_FORCE(struct html_params, force),
	CLI_END
};

const struct cli_cmd html_cli = {
	.name = "latscope html",
	.usage = "usage: latscope html -i REPORT.json -o REPORT.html",
	.intro =
"Draw the HTML page of a JSON document a latscope command wrote (--json,\n"
"--json=FILE), picked by its \"schema\" key: latscope.dtl-report/1 (dtl report),\n"
"latscope.hist/1 (hist record|report|top; the histograms need --buckets-json),\n"
"latscope.osnoise/1 (osnoise top|hist|trace|record).  The page is the one\n"
"--html FILE writes: one self-contained file, inline SVG, no script, no\n"
"network.\n",
	.opts = html_opts,
	.outro =
"Exit status: 0 ok, 2 unreadable input, not a latscope document with a page,\n"
"or a write error.  See docs/html.md.\n",
};

/* The document in path ("-" = stdin): a new reference, or NULL after a line on stderr. */
static struct json_object *read_doc(const char *path)
{
	static const char *const who = "latscope html";
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "%s: cannot open %s: %s\n", who, path, strerror(errno));
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new();
	struct json_object *j = NULL;
	enum json_tokener_error e = json_tokener_continue;
	char buf[65536];
	size_t n, total = 0;
	while (tok && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		total += n;
		if (total > HTML_MAX_INPUT) {
			fprintf(stderr, "%s: %s: larger than %u MiB: not a latscope report\n", who, path,
				HTML_MAX_INPUT >> 20);
			goto out;
		}
		j = json_tokener_parse_ex(tok, buf, (int)n);
		e = json_tokener_get_error(tok);
		if (e != json_tokener_continue)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: error reading %s\n", who, path);
		json_object_put(j);
		j = NULL;
	} else if (!tok) {
		fprintf(stderr, "%s: out of memory\n", who);
	} else if (!j || e != json_tokener_success) {
		fprintf(stderr, "%s: %s: not JSON (%s at byte %zu)\n", who, path,
			e == json_tokener_continue ? "it ends early" : json_tokener_error_desc(e),
			e == json_tokener_continue ? total : (size_t)json_tokener_get_parse_end(tok));
		json_object_put(j);
		j = NULL;
	}
out:
	if (tok)
		json_tokener_free(tok);
	if (f != stdin)
		fclose(f);
	return j;
}

int cmd_html(int argc, char **argv)
{
	struct html_params p = { 0 };
	char err[256];
	int first;
	int rc = cli_parse(&html_cli, argc, argv, &p, &first, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(&html_cli, stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_ERR;
	}
	if (!p.input || !p.output) {
		fprintf(stderr, "latscope html: needs -i REPORT.json and -o REPORT.html; see --help\n");
		return EXIT_ERR;
	}
	struct json_object *j = read_doc(p.input);
	if (!j)
		return EXIT_ERR;
	struct json_object *s = NULL;
	const char *schema = json_object_is_type(j, json_type_object) &&
			     json_object_object_get_ex(j, "schema", &s) &&
			     json_object_is_type(s, json_type_string) ? json_object_get_string(s) : NULL;
	if (!htmlrep_supported(schema)) {
		fprintf(stderr, "latscope html: %s: %s%s%s\n", p.input,
			schema ? "schema " : "no \"schema\" key: ", schema ? schema : "",
			schema ? " has no page (latscope.dtl-report/1, latscope.hist/1, latscope.osnoise/1)"
			       : "not a latscope document");
		json_object_put(j);
		return EXIT_ERR;
	}
	rc = jsonout_html(j, p.output, p.force, "latscope html");
	json_object_put(j);
	return rc;
}
