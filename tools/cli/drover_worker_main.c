/*  =========================================================================
    drover-worker - the worker agent as an executable of its own: the same
    agent as `drover worker` (src/worker/drover_agent.c), with the same
    flags, linking only what an agent needs

    `drover` links the broker's libraries too (SQLite, libpq, curl with
    its TLS and Kerberos, microhttpd, ncurses, jemalloc): an agent that
    is one of thousands pays for their pages and for the loader's
    relocations of some sixty libraries, about 15 MiB of RSS idle. This
    executable is the agent's objects on czmq, libzmq and msgpack alone.

    What is left is about 7.8 MiB resident, 2.4 MiB of it proportional
    (Pss) with one agent on the machine and under 1 MiB with a thousand:
    the pages of libc, libstdc++ (libzmq is C++), libzmq and czmq and
    their own dependencies (Kerberos, OpenPGM, NORM, libsodium; libsystemd
    and its compressors). The agent's own threads are three (the main,
    libzmq's one I/O thread and its reaper) and its heap is small: capping
    glibc's arenas (M_ARENA_MAX) saved under 50 KiB, so it is not done.

    `drover worker` keeps working as it did; the packaged systemd unit
    (packaging/systemd/drover-worker@.service) starts this one.
    =========================================================================
*/

#include "drover_agent.h"
#include "drover_msg.h"
#include "drover_release.h"
#include "drover_log.h"
#include <czmq.h>

//  True if argv asks for --version before any "--", as `drover worker`
//  answers it
static bool
s_asks_version (int argc, char **argv)
{
    for (int index = 1; index < argc && !streq (argv [index], "--"); index++)
        if (streq (argv [index], "--version"))
            return true;
    return false;
}

//  Run the agent: `drover-worker [options]` is `drover worker [options]`
int
main (int argc, char **argv)
{
    //  What the libraries say before the agent chooses its log stream
    //  goes to stderr, as `drover`'s main sends it (DROVER_VERBOSE=1: all)
    drover_log_init_command ("drover");
    if (s_asks_version (argc, argv)) {
        printf ("drover %s (protocol level %d)\n", DROVER_RELEASE, DROVER_MSG_LEVEL);
        return 0;
    }
    argv [0] = "worker";
    return drover_agent_main (argc, argv);
}
