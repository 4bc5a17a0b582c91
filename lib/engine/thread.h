/* SPDX-License-Identifier: MIT */
/*
 * thread.h - task names over time, the way perf's machine/thread model keeps
 * them: COMM records set a thread's comm, FORK copies the parent's, a thread
 * never seen is named ":<tid>", tid 0 is "swapper".
 *
 * Prefix: thread_.  Storage grows by doubling (no allocation per record).
 */
#ifndef LATSCOPE_THREAD_H
#define LATSCOPE_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#define THREAD_COMM_LEN 32

struct thread_table;

/* Returns NULL on allocation failure; free with thread_free(). */
struct thread_table *thread_new(void);
void thread_free(struct thread_table *t);

/* COMM record. */
int thread_set_comm(struct thread_table *t, int32_t pid, int32_t tid, const char *comm);
/* FORK record: the child inherits the parent's comm (if it had one set). */
int thread_fork(struct thread_table *t, int32_t ppid, int32_t ptid, int32_t pid, int32_t tid);
/* The comm of tid; the returned string is owned by the table and valid until
 * the next call that modifies it.  Unknown threads are created (":<tid>"). */
const char *thread_comm(struct thread_table *t, int32_t pid, int32_t tid);
/* A number that changes whenever strings returned by thread_comm() may have
 * moved (the table grew): a caller may keep such a pointer while it is the
 * same (the string's contents follow COMM and FORK records). */
uint64_t thread_generation(const struct thread_table *t);
/* Pid of tid if known, else -1. */
int32_t thread_pid(struct thread_table *t, int32_t tid);

#endif
