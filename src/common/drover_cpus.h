/*  =========================================================================
    drover_cpus - the CPUs a process runs on: a list such as "0", "2-3" or
    "0,2,4-5" (broker/cpus), parsed, described and applied to every thread

    Why a broker would be kept on a few CPUs: each task crosses its threads
    (the main, libzmq's I/O thread, assign) several times, and each hand-off
    wakes the next thread. On one CPU that is a context switch; across CPUs
    it is an interrupt to the other CPU, which on a virtual machine costs
    tens of microseconds when that CPU was idle (docs/performance.md).
    =========================================================================
*/

#ifndef DROVER_CPUS_H_INCLUDED
#define DROVER_CPUS_H_INCLUDED

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Parse a CPU list (comma-separated CPU numbers and ranges LOW-HIGH, each
//  under CPU_SETSIZE) into set. "" is an empty set. Returns 0, or -1 with
//  *error_p (ours to free) saying what is wrong.
int
    drover_cpus_parse (const char *text, cpu_set_t *set, char **error_p);

//  Check a CPU list as drover_cpus_parse does, for a setting's value.
//  Returns 0, or -1 with *error_p (ours to free).
int
    drover_cpus_check (const char *text, char **error_p);

//  Describe a set as a CPU list ("0-1,3"; "" when empty) into buffer
void
    drover_cpus_format (const cpu_set_t *set, char *buffer, size_t size);

//  Describe the CPUs this thread may run on as a CPU list into buffer
//  ("?" when the kernel will not say)
void
    drover_cpus_describe_own (char *buffer, size_t size);

//  Keep every thread of this process, and those it starts later, on the
//  CPUs of text; "" changes nothing. Returns 0, or -1 with *error_p (ours to
//  free): a list that does not parse, or that names no CPU this process may
//  use (its cgroup's cpuset, the CPUs online).
int
    drover_cpus_apply (const char *text, char **error_p);

#ifdef __cplusplus
}
#endif

#endif
