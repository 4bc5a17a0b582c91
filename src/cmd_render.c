/* SPDX-License-Identifier: MIT */
/* cmd_render.c - `latscope render` and `latscope html`: a saved latscope JSON
 * document drawn in one of the report's forms (lib/print/render.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "jsonout.h"
#include "print/render.h"

#define RENDER_MAX_INPUT (256u << 20)	/* the largest document read */

struct render_params {
	const char *input, *output, *format;
	bool force;
};

static const struct cli_opt render_opts[] = {
	CLI_OPT("format", 'f', CLI_T_STR, struct render_params, format, CLI_NONE, 0, 0, 0, "FORMAT",
		"the form: html (default), md (a Markdown summary)", NULL),
	CLI_INPUT(struct render_params, input, "the JSON document (- = standard input)"),
	CLI_OUTPUT(struct render_params, output, "the file to write"),
	CLI_FORCE(struct render_params, force),
	CLI_END
};

static const struct cli_opt html_opts[] = {
	CLI_INPUT(struct render_params, input, "the JSON document (- = standard input)"),
	CLI_OUTPUT(struct render_params, output, "the HTML page to write"),
	CLI_FORCE(struct render_params, force),
	CLI_END
};

#define DOCS "latscope.dtl-report/1 (dtl report),\n" \
	     "latscope.hist/1 (hist record|report|top; the HTML histograms need\n" \
	     "--buckets-json), latscope.osnoise/1 (osnoise top|hist|trace|record),\n" \
	     "latscope.timerlat/1 (timerlat top|hist|trace)"

const struct cli_cmd render_cli = {
	.name = "latscope render",
	.usage = "usage: latscope render -f FORMAT -i REPORT.json -o FILE",
	.intro =
"Draw a JSON document a latscope command wrote (--json, --json=FILE) in one\n"
"of the report's forms, picked by its \"schema\" key: " DOCS ".\n"
"The form is the one --render FORMAT=FILE writes during the run: html (one\n"
"self-contained page, inline SVG, no script, no network; docs/html.md), md\n"
"(a Markdown summary: the headline tables and every loss; docs/render.md).\n",
	.opts = render_opts,
	.outro =
"Exit status: 0 ok, 2 unreadable input, an unknown form, not a latscope\n"
"document with that form, or a write error.  See docs/render.md.\n",
};

const struct cli_cmd html_cli = {
	.name = "latscope html",
	.usage = "usage: latscope html -i REPORT.json -o REPORT.html",
	.intro =
"Draw the HTML page of a JSON document a latscope command wrote (--json,\n"
"--json=FILE), picked by its \"schema\" key: " DOCS ".\n"
"The page is the one --html FILE writes: one self-contained file, inline\n"
"SVG, no script, no network (= latscope render -f html).\n",
	.opts = html_opts,
	.outro =
"Exit status: 0 ok, 2 unreadable input, not a latscope document with a page,\n"
"or a write error.  See docs/html.md.\n",
};

/* The document in path ("-" = stdin): a new reference, or NULL after a line on stderr. */
static struct json_object *read_doc(const char *who, const char *path)
{
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
		if (total > RENDER_MAX_INPUT) {
			fprintf(stderr, "%s: %s: larger than %u MiB: not a latscope report\n", who, path,
				RENDER_MAX_INPUT >> 20);
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

/* The command of cli (render_cli or html_cli), whose form is format
 * unless -f names one. */
static int run(const struct cli_cmd *cli, const char *format, int argc, char **argv)
{
	struct render_params p = { .format = format };
	char err[256];
	int first;
	int rc = cli_parse(cli, argc, argv, &p, &first, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(cli, stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_ERR;
	}
	const struct render_ops *r = render_find(p.format);
	if (!r) {
		char names[128];
		fprintf(stderr, "%s: no form '%s' (%s)\n", cli->name, p.format, render_names(names, sizeof(names)));
		return EXIT_ERR;
	}
	if (!p.input || !p.output) {
		fprintf(stderr, "%s: needs -i REPORT.json and -o FILE; see --help\n", cli->name);
		return EXIT_ERR;
	}
	struct json_object *j = read_doc(cli->name, p.input);
	if (!j)
		return EXIT_ERR;
	const char *schema = report_schema(j);
	if (!r->supported(schema)) {
		bool page = !strcmp(r->name, "html");
		fprintf(stderr, "%s: %s: %s%s%s%s%s\n", cli->name, p.input,
			schema ? "schema " : "no \"schema\" key: ", schema ? schema : "",
			!schema ? "not a latscope document" : page ? " has no page" : " has no ",
			schema && !page ? r->name : "", schema ? (page ? " (latscope.dtl-report/1, latscope.hist/1, "
						      "latscope.osnoise/1)" : " form (latscope.dtl-report/1, "
						      "latscope.hist/1, latscope.osnoise/1)") : "");
		json_object_put(j);
		return EXIT_ERR;
	}
	rc = jsonout_render_one(j, r->name, p.output, p.force, cli->name);
	json_object_put(j);
	return rc;
}

int cmd_render(int argc, char **argv)
{
	return run(&render_cli, "html", argc, argv);
}

int cmd_html(int argc, char **argv)
{
	return run(&html_cli, "html", argc, argv);
}
