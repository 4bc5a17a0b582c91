#!/bin/sh
# SPDX-License-Identifier: MIT
# The vpa-dtl documentation's example: a 1680-byte AUX buffer holding the
# boot_tb/tb_freq header and 34 entries.  `dtl dump` must print the same
# numbers as the documentation (size 1680 bytes, entries is 35, boot_tb
# 21349649546353231, tb_freq 512000000, the first entry 7064/187/6611773) and
# `dtl script` the same time (105373.359913) - in a big-endian file too, where
# perf itself would read the header byte-swapped.
. "$TESTS_DIR/lib.sh"
F=$TESTS_DIR/data/formats
[ -x "$TOOLS/mkdtl" ] || skip "mkdtl tool not built"
cd "$TMP" || die "no tmp"
for e in "" --big-endian; do
	"$TOOLS/mkdtl" --doc $e -o doc.data --formats "$F" || die "mkdtl --doc $e"
	"$LATSCOPE" dtl dump doc.data > dump.txt || die "dump $e"
	grep -qx '\. \.\.\. VPA DTL PMU data: size 1680 bytes, entries is 35' dump.txt || die "size/entries line $e"
	grep -qx '\.  00000000: boot_tb: 21349649546353231, tb_freq: 512000000' dump.txt || die "header line $e"
	grep -qx '\.  00000030: dispatch_reason:decrementer_interrupt, preempt_reason:H_CEDE, enqueue_to_dispatch_time:7064, ready_to_enqueue_time:187, waiting_to_ready_time:6611773' dump.txt ||
		die "first entry line $e"
	[ "$(grep -c '^\.  [0-9a-f]\{8\}: ' dump.txt)" = 35 ] || die "expected 35 slot lines $e"
	grep -q 'PERF_RECORD_AUXTRACE size: 0x690  offset: 0  ref: 0  idx: 0  tid: -1  cpu: 16$' dump.txt || die "AUXTRACE line $e"
	"$LATSCOPE" dtl script doc.data > script.txt 2> err.txt || die "script $e"
	head -1 script.txt | grep -q '\[016\] 105373\.359913:  *vpa-dtl: timebase: 21403600706628832 dispatch_reason:decrementer_interrupt, preempt_reason:H_CEDE,$' ||
		die "script first line $e: $(head -1 script.txt)"
	sed -n 2p script.txt | grep -q '^enqueue_to_dispatch_time:7064, ready_to_enqueue_time:187,waiting_to_ready_time:6611773, processor_id: 17 ' ||
		die "script second line $e: $(sed -n 2p script.txt)"
	# the DTL has no task: no invented ":256 256"
	grep -q ':256' script.txt && die "invented task fields"
	[ "$(grep -c 'vpa-dtl:' script.txt)" = 34 ] || die "expected 34 entries $e"
	"$LATSCOPE" dtl script --csv doc.data | sed -n 2p | grep -qx '16,105373359913283,21403600706628832,decrementer_interrupt,H_CEDE,7064,187,6611773,17,0x0,0xc0000000000f8094,0x8000000000001033,' ||
		die "csv row $e: $("$LATSCOPE" dtl script --csv doc.data | sed -n 2p)"
done
exit 0
