#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope completion bash` (src/completion.c, made from the option tables):
# sourced in bash it registers _latscope for latscope; a few completions
# give what a user expects (subcommands, options, --backend's values, file
# names after -i, --json=FILE); and every command, subcommand and option
# the --help texts show is completed (so a new option cannot be forgotten),
# every subcommand it completes is one latscope takes.
. "$TESTS_DIR/lib.sh"
command -v bash >/dev/null || skip "no bash"
"$LATSCOPE" completion bash > "$TMP/latscope.bash" || die "latscope completion bash failed"
bash -n "$TMP/latscope.bash" || die "the completion script is not valid bash"
"$LATSCOPE" completion zsh > /dev/null 2>&1 && die "completion zsh accepted"
mkdir "$TMP/d" && : > "$TMP/d/rec.data" && mkdir "$TMP/d/outdir"
cat > "$TMP/t.bash" <<EOS
. "$TMP/latscope.bash"
# t WORD...: complete the last word of "latscope WORD..."; prints the replies
t() { COMP_WORDS=(latscope "\$@"); COMP_CWORD=\$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _latscope
      printf '%s\n' "\${COMPREPLY[@]}" | sort | tr '\n' ' '; echo; }
EOS
# q WORD...: the replies for "latscope WORD..."
q() {
	{ cat "$TMP/t.bash"; printf 't'; for w; do printf " '%s'" "$w"; done; echo; } > "$TMP/q.bash"
	bash "$TMP/q.bash" 2>"$TMP/q.err" | sed 's/ $//'
	[ ! -s "$TMP/q.err" ] || die "bash said for latscope $*: $(cat "$TMP/q.err")"
}
expect() {	# expect "WANT" WORD...
	want=$1; shift
	got=$(q "$@")
	[ "$got" = "$want" ] || die "latscope $* <TAB>: got '$got', want '$want'"
}
reg=$(bash -c ". '$TMP/latscope.bash'; complete -p latscope")
[ "$reg" = "complete -F _latscope latscope" ] || die "complete -p latscope: $reg"
expect "record" hist rec
expect "--backend" osnoise top --ba
expect "auto bpf kernel perf" osnoise top --backend ""
expect "auto bpf kernel perf" hist record --backend ""
expect "bpf" monitor --backend b
expect "dtl_all dtl_cede dtl_fault dtl_preempt" dtl record -e ""
expect "top trace" osnoise t
expect "--backend" osnoise --ba
expect "$TMP/d/rec.data" hist report -i "$TMP/d/r"
expect "$TMP/d/rec.data" hist report --json = "$TMP/d/r"
expect "$TMP/d/outdir" monitor --textfile "$TMP/d/"
expect "" hist record --duration ""
expect "osnoise" help os
expect "bash" completion ""

# every command of `latscope --help`, completed at the first word
top=$(q "")
cmds=$("$LATSCOPE" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$cmds" ] || die "no commands in latscope --help"
for c in $cmds; do
	case " $top " in *" $c "*) ;; *) die "command $c (latscope --help) is not completed: $top";; esac
done
paths=""
nopt=0
for c in $cmds; do
	[ "$c" = help ] || [ "$c" = completion ] && continue
	"$LATSCOPE" "$c" --help > "$TMP/h" 2>&1 || die "latscope $c --help failed"
	subs=""
	for w in $(grep -E '^  [a-z]+ ' "$TMP/h" | awk '{ print $1 }'); do
		"$LATSCOPE" "$c" "$w" --help > /dev/null 2>&1 && subs="$subs $w"
	done
	got=$(q "$c" "")
	for s in $subs; do
		case " $got " in *" $s "*) ;; *) die "subcommand $c $s is not completed: $got";; esac
		paths="$paths $c:$s"
	done
	# every subcommand completed is one latscope takes
	if [ -n "$subs" ]; then
		for s in $got; do
			"$LATSCOPE" "$c" "$s" --help > /dev/null 2>&1 || die "completed $c $s: latscope $c $s --help fails"
		done
	fi
	[ -n "$subs" ] && [ "$c" != osnoise ] || paths="$paths $c"
done
for p in $paths; do
	words=$(echo "$p" | tr ':' ' ')
	# shellcheck disable=SC2086
	"$LATSCOPE" $words --help > "$TMP/h" 2>&1 || die "latscope $words --help failed"
	opts=$(grep -E '^ {2,6}(-[A-Za-z0-9], )?--[a-z0-9]' "$TMP/h" | sed -E 's/^ +//; s/^(-[A-Za-z0-9]), /\1 /' |
		awk '{ print $1; if ($2 ~ /^--/) print $2 }' | sed 's/\[=.*//' | sort -u)
	[ -n "$opts" ] || die "no options in latscope $words --help"
	# shellcheck disable=SC2086
	got=$(q $words -)
	for o in $opts; do
		nopt=$((nopt + 1))
		case " $got " in *" $o "*) ;; *) die "latscope $words: $o (in its --help) is not completed";; esac
	done
done
echo "ok: $(echo $cmds | wc -w) commands, paths:$paths; $nopt options of the --help texts all completed; values, files"
