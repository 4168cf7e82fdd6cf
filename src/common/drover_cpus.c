/*  =========================================================================
    drover_cpus - the CPUs a process runs on: parsed from a CPU list,
    described as one, and applied to every thread of the process
    =========================================================================
*/

#include "drover_cpus.h"
#include <czmq.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sys/types.h>

//  Read one CPU number at *text, moving past it. Returns it, or -1 when
//  *text holds no number under CPU_SETSIZE.
static long
s_number (const char **text)
{
    if (!isdigit ((unsigned char) **text))
        return -1;
    long number = 0;
    while (isdigit ((unsigned char) **text)) {
        number = number * 10 + (**text - '0');
        if (number >= CPU_SETSIZE)
            return -1;
        (*text)++;
    }
    return number;
}

//  Parse a CPU list into set; -1 with *error_p when it is not one
int
drover_cpus_parse (const char *text, cpu_set_t *set, char **error_p)
{
    assert (text && set && error_p);
    CPU_ZERO (set);
    const char *cursor = text;
    while (*cursor) {
        long low = s_number (&cursor);
        long high = low;
        if (low >= 0 && *cursor == '-') {
            cursor++;
            high = s_number (&cursor);
        }
        bool ended = *cursor == 0 || (*cursor == ',' && cursor [1]);
        if (low < 0 || high < low || !ended) {
            *error_p = zsys_sprintf ("'%s' is not a CPU list (numbers under %d and ranges LOW-HIGH,"
                                     " comma-separated, e.g. 0,2-3)", text, CPU_SETSIZE);
            return -1;
        }
        for (long cpu = low; cpu <= high; cpu++)
            CPU_SET ((int) cpu, set);
        if (*cursor == ',')
            cursor++;
    }
    return 0;
}

//  Check a CPU list without keeping the set
int
drover_cpus_check (const char *text, char **error_p)
{
    cpu_set_t set;
    return drover_cpus_parse (text, &set, error_p);
}

//  Describe a set as a CPU list, ranges where CPUs follow each other
void
drover_cpus_format (const cpu_set_t *set, char *buffer, size_t size)
{
    assert (set && buffer && size);
    *buffer = 0;
    size_t used = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && used < size; cpu++) {
        if (!CPU_ISSET (cpu, set))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET (last + 1, set))
            last++;
        int wrote = last == cpu? snprintf (buffer + used, size - used, "%s%d", used? ",": "", cpu)
                  : snprintf (buffer + used, size - used, "%s%d-%d", used? ",": "", cpu, last);
        used += wrote > 0? (size_t) wrote: 0;
        cpu = last;
    }
}

//  Describe the CPUs this thread may run on
void
drover_cpus_describe_own (char *buffer, size_t size)
{
    assert (buffer && size);
    cpu_set_t set;
    if (sched_getaffinity (0, sizeof set, &set) == 0)
        drover_cpus_format (&set, buffer, size);
    else
        snprintf (buffer, size, "?");
}

//  Keep every thread of this process on the CPUs of a list
int
drover_cpus_apply (const char *text, char **error_p)
{
    assert (text && error_p);
    cpu_set_t set;
    if (drover_cpus_parse (text, &set, error_p))
        return -1;
    if (!*text)
        return 0;
    //  This thread first: the kernel refuses a set with no CPU we may use
    if (sched_setaffinity (0, sizeof set, &set)) {
        *error_p = zsys_sprintf ("cannot run on CPUs %s: %s", text,
                                 errno == EINVAL? "none of them is online and allowed to this"
                                                  " process": strerror (errno));
        return -1;
    }
    //  Then any other thread already started (the later ones inherit it)
    DIR *tasks = opendir ("/proc/self/task");
    if (tasks) {
        struct dirent *entry;
        while ((entry = readdir (tasks)))
            if (isdigit ((unsigned char) entry->d_name [0]))
                sched_setaffinity ((pid_t) atol (entry->d_name), sizeof set, &set);
        closedir (tasks);
    }
    return 0;
}
