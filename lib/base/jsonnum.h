/* SPDX-License-Identifier: MIT */
/*
 * jsonnum.h - JSON values that JSON readers do not round.
 *
 * Prefix: jsonnum_.
 *
 * Many JSON readers (JavaScript, jq, Python's json with floats elsewhere)
 * hold numbers as IEEE doubles, exact only up to 2^53.  Every command writes
 * 64-bit values through these two helpers, so the rule is the same
 * everywhere:
 *  - addresses (ip, srr0, srr1, fault_addr, pointer fields) are always hex
 *    strings, "0xc0000000000fcd28";
 *  - any other unsigned 64-bit value (times in ns, timebase, boot_tb,
 *    counters) is a JSON number up to 2^53 and a decimal string above it,
 *    "21349649546353231": a reader that needs it exactly parses the string.
 * The objects are new references the caller hands to json-c (which frees
 * them with their parent).
 */
#ifndef LATSCOPE_JSONNUM_H
#define LATSCOPE_JSONNUM_H

#include <stdint.h>

#include <json-c/json.h>

#define JSONNUM_EXACT_MAX (1ULL << 53)

struct json_object *jsonnum_u64(uint64_t v);
struct json_object *jsonnum_i64(int64_t v);
struct json_object *jsonnum_addr(uint64_t a);

#endif
