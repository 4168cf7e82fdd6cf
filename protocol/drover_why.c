/*  =========================================================================
    drover_why - TASK EXPLANATION items in words: the sentence for each
    item, and the short form the REASON column of `drover tasks` shows
    =========================================================================
*/

#include "drover_why.h"

//  Return the verdict among items, or NULL
const drover_why_t *
drover_why_verdict (const drover_why_t *whys, size_t count)
{
    for (size_t index = 0; index < count; index++)
        if (whys [index].code >= DROVER_WHY_NEXT)
            return &whys [index];
    return NULL;
}

//  Return true if a verdict says no connected worker could ever run the task
bool
drover_why_never (const drover_why_t *verdict)
{
    return verdict && ((verdict->code >= DROVER_WHY_NEVER_NONE
                        && verdict->code <= DROVER_WHY_NEVER_ALL)
                    || verdict->code == DROVER_WHY_POOL_NOFIT
                    || verdict->code == DROVER_WHY_NEVER_DEVICES);
}

//  Format bytes for people: 512B, 64K, 1.5G, 30G (4.0G: tenths under 10)
void
drover_why_bytes (uint64_t bytes, char *text, size_t size)
{
    const char *units = "BKMGTPE";
    double value = (double) bytes;
    int unit = 0;
    while (value >= 1024 && unit < 6) {
        value /= 1024;
        unit++;
    }
    if (unit == 0)
        snprintf (text, size, "%lluB", (unsigned long long) bytes);
    else
        snprintf (text, size, value < 10? "%.1f%c": "%.0f%c", value, units [unit]);
}

//  Say a time (msec since the epoch) as HH:MM:SS local time
static void
s_clock (uint64_t msec, char *text, size_t size)
{
    time_t seconds = (time_t) (msec / 1000);
    struct tm tm;
    if (localtime_r (&seconds, &tm))
        strftime (text, size, "%H:%M:%S", &tm);
    else
        snprintf (text, size, "?");
}

//  Say a permille as a percent: "25%", "12.5%"
static void
s_percent (uint64_t permille, char *text, size_t size)
{
    if (permille % 10)
        snprintf (text, size, "%" PRIu64 ".%" PRIu64 "%%", permille / 10, permille % 10);
    else
        snprintf (text, size, "%" PRIu64 "%%", permille / 10);
}

//  Say FAIR_SHARE: "owner alice (account physics) is above its share: 60%
//  of procs against 25%"
static void
s_fair_share (const drover_why_t *why, char *text, size_t size)
{
    char share [48], fair [48], account [DROVER_ID_MAX + 16] = "";
    s_percent (why->a, share, sizeof share);
    s_percent (why->b, fair, sizeof fair);
    if (why->nnames > 1)
        snprintf (account, sizeof account, " (account %s)", why->names [1]);
    snprintf (text, size, "owner %s%s is above its share: %s of %s against %s",
              why->nnames? why->names [0]: "?", account, share,
              *why->text? why->text: "the cluster", fair);
}

//  Say QUOTA: "quota: account physics runs 40 procs, at most 40"
static void
s_quota (const drover_why_t *why, char *text, size_t size)
{
    char used [32], limit [32];
    if (streq (why->text, "mem")) {
        drover_why_bytes (why->a, used, sizeof used);
        drover_why_bytes (why->b, limit, sizeof limit);
    }
    else {
        snprintf (used, sizeof used, "%" PRIu64, why->a);
        snprintf (limit, sizeof limit, "%" PRIu64, why->b);
    }
    snprintf (text, size, "quota: %s%s runs %s %s, at most %s", why->count == 1? "account ": "",
              why->nnames? why->names [0]: "?", used, why->text, limit);
}

//  Say what would make a worker usable again, for WHEN_USABLE (a: the
//  worker's reason code, b: a probation end or 0)
static void
s_usable_again (const drover_why_t *why, char *text, size_t size)
{
    char clock [32];
    if (why->a == DROVER_WHY_PROBATION && why->b) {
        s_clock (why->b, clock, sizeof clock);
        snprintf (text, size, "leaves probation at %s", clock);
    }
    else
        snprintf (text, size, "%s",
                  why->a == DROVER_WHY_PROBATION? "leaves probation":
                  why->a == DROVER_WHY_LOW_DISK? "has disk room again":
                  why->a == DROVER_WHY_LENT? "comes back from the fast path": "is resumed");
}

//  Say "N ahead: ..." for an AHEAD item
static void
s_ahead (const drover_why_t *why, char *text, size_t size)
{
    if (why->count == 0) {
        snprintf (text, size, "first in the queue");
        return;
    }
    uint64_t earlier = why->count - why->a - why->b;
    size_t used = (size_t) snprintf (text, size, "%u ahead:", why->count);
    const char *comma = "";
    if (why->a && used < size) {
        used += (size_t) snprintf (text + used, size - used, " %" PRIu64 " of higher priority",
                                   why->a);
        comma = ",";
    }
    if (why->b && used < size) {
        used += (size_t) snprintf (text + used, size - used, "%s %" PRIu64 " asking more procs",
                                   comma, why->b);
        comma = ",";
    }
    if (earlier && used < size)
        snprintf (text + used, size - used, "%s %" PRIu64 " earlier of the same", comma, earlier);
}

//  Say one item in words, without the worker names
void
drover_why_sentence (const drover_why_t *why, char *text, size_t size)
{
    char have [32], want [32], clock [32], again [64];
    const char *name = why->nnames? why->names [0]: "a worker";
    switch (why->code) {
        case DROVER_WHY_AHEAD:
            s_ahead (why, text, size);
            return;
        case DROVER_WHY_FITS:
            snprintf (text, size, "could take it now (%" PRIu64 " procs free)", why->a);
            return;
        case DROVER_WHY_LABEL:
            snprintf (text, size, "lacks label %s", why->text);
            return;
        case DROVER_WHY_PROCS:
            snprintf (text, size, "has %" PRIu64 " procs of %" PRIu64 " asked", why->a, why->b);
            return;
        case DROVER_WHY_MEM:
            drover_why_bytes (why->a, have, sizeof have);
            drover_why_bytes (why->b, want, sizeof want);
            snprintf (text, size, "has %s memory of %s asked", have, want);
            return;
        case DROVER_WHY_HELD:
            snprintf (text, size, "held");
            return;
        case DROVER_WHY_DRAINING:
            snprintf (text, size, "draining");
            return;
        case DROVER_WHY_PROBATION:
            if (why->a) {
                s_clock (why->a, clock, sizeof clock);
                snprintf (text, size, "on probation until %s", clock);
            }
            else
                snprintf (text, size, "on probation");
            return;
        case DROVER_WHY_LOW_DISK:
            snprintf (text, size, "low disk");
            return;
        case DROVER_WHY_RESERVED:
            snprintf (text, size, "reserved for task %" PRIu64, why->a);
            return;
        case DROVER_WHY_LENT:
            snprintf (text, size, "lent to the fast path, coming back");
            return;
        case DROVER_WHY_BUSY:
            snprintf (text, size, "busy (would fit when %" PRIu64 " more procs free)",
                      why->b > why->a? why->b - why->a: 0);
            return;
        case DROVER_WHY_BUSY_MEM:
            drover_why_bytes (why->b > why->a? why->b - why->a: 0, want, sizeof want);
            snprintf (text, size, "busy (would fit when %s more memory free)", want);
            return;
        case DROVER_WHY_KEPT:
            snprintf (text, size, "kept for this task (fits when %" PRIu64 " more procs free)",
                      why->b > why->a? why->b - why->a: 0);
            return;
        case DROVER_WHY_NEXT:
            snprintf (text, size, "runs next: fits on %s now", name);
            return;
        case DROVER_WHY_FITS_WHEN:
            drover_why_bytes (why->b, want, sizeof want);
            if (why->a && why->b)
                snprintf (text, size, "fits on %s when %" PRIu64 " more procs and %s more memory "
                          "free", name, why->a, want);
            else
            if (why->b)
                snprintf (text, size, "fits on %s when %s more memory free", name, want);
            else
                snprintf (text, size, "fits on %s when %" PRIu64 " more procs free", name, why->a);
            return;
        case DROVER_WHY_AFTER:
            snprintf (text, size, "runs on %s once task %" PRIu64 ", kept for it, is placed",
                      name, why->a);
            return;
        case DROVER_WHY_WHEN_USABLE:
            s_usable_again (why, again, sizeof again);
            snprintf (text, size, "runs when %s %s", name, again);
            return;
        case DROVER_WHY_NEVER_NONE:
            snprintf (text, size, "no worker could ever run it: no worker is connected");
            return;
        case DROVER_WHY_NEVER_LABEL:
            snprintf (text, size, "no worker could ever run it: no worker has label %s", why->text);
            return;
        case DROVER_WHY_NEVER_PROCS:
            snprintf (text, size, "no worker could ever run it: the most procs a worker has is %"
                      PRIu64 ", of %" PRIu64 " asked", why->a, why->b);
            return;
        case DROVER_WHY_NEVER_MEM:
            drover_why_bytes (why->a, have, sizeof have);
            drover_why_bytes (why->b, want, sizeof want);
            snprintf (text, size, "no worker could ever run it: the most memory a worker has is "
                      "%s, of %s asked", have, want);
            return;
        case DROVER_WHY_NEVER_ALL:
            snprintf (text, size, "no worker could ever run it: no one worker has all it asks");
            return;
        case DROVER_WHY_POOL_START:
            snprintf (text, size, "no connected worker could run it: an instance of type %s "
                      "will be started", why->text);
            return;
        case DROVER_WHY_POOL_NOFIT:
            snprintf (text, size, "no connected worker could run it, and no instance type fits");
            return;
        case DROVER_WHY_AFFINITY:
            if (!why->nnames)
                snprintf (text, size, "no connected worker could run it: it waits for one, "
                          "placed by its affinity key");
            else
            if (why->a) {
                s_clock (why->a, clock, sizeof clock);
                snprintf (text, size, "waits for %s, first in its affinity order, until %s; "
                          "then the first in order with room", name, clock);
            }
            else
                snprintf (text, size, "waits for room on the first worker in its affinity "
                          "order that has some (%s first)", name);
            return;
        case DROVER_WHY_PARENT:
            snprintf (text, size, "waits for task %" PRIu64 " (%s)", why->a,
                      drover_task_state_name ((int) why->b));
            return;
        case DROVER_WHY_BEGIN:
            s_clock (why->a, clock, sizeof clock);
            snprintf (text, size, "begins at %s", clock);
            return;
        case DROVER_WHY_RETRY:
            s_clock (why->a, clock, sizeof clock);
            snprintf (text, size, "retry: attempt %" PRIu64 " of %u at %s", why->b, why->count,
                      clock);
            return;
        case DROVER_WHY_ARRAY_LIMIT:
            snprintf (text, size, "array %" PRIu64 ": %" PRIu64 " of its elements queued or "
                      "running, limit %u reached", why->a, why->b, why->count);
            return;
        case DROVER_WHY_GROUP:
            snprintf (text, size, "%" PRIu64 " of %" PRIu64 " members ended, %u queued or running",
                      why->a, why->b, why->count);
            return;
        case DROVER_WHY_DEVICES:
            snprintf (text, size, "has %" PRIu64 " %s in all, of %" PRIu64 " asked", why->a,
                      why->text, why->b);
            return;
        case DROVER_WHY_BUSY_DEVICES:
            snprintf (text, size, "busy (has %" PRIu64 " %s free, of %" PRIu64 " asked)", why->a,
                      why->text, why->b);
            return;
        case DROVER_WHY_NEVER_DEVICES:
            snprintf (text, size, "no worker could ever run it: the most %s a worker has is %"
                      PRIu64 ", of %" PRIu64 " asked", why->text, why->a, why->b);
            return;
        case DROVER_WHY_FAIR_SHARE:
            s_fair_share (why, text, size);
            return;
        case DROVER_WHY_QUOTA:
            s_quota (why, text, size);
            return;
    }
    snprintf (text, size, "reason %u", why->code);
}

//  Say a whole explanation in a few words, for a REASON column
void
drover_why_short (const drover_why_t *whys, size_t count, char *text, size_t size)
{
    const drover_why_t *verdict = drover_why_verdict (whys, count);
    uint32_t ahead = count && whys [0].code == DROVER_WHY_AHEAD? whys [0].count: 0;
    char have [32], want [32], clock [32];
    if (!verdict) {
        snprintf (text, size, "%s", "");
        return;
    }
    switch (verdict->code) {
        case DROVER_WHY_NEVER_NONE:
            snprintf (text, size, "no workers");
            return;
        case DROVER_WHY_NEVER_LABEL:
            snprintf (text, size, "no label %s", verdict->text);
            return;
        case DROVER_WHY_NEVER_PROCS:
            snprintf (text, size, "procs %" PRIu64 ">%" PRIu64, verdict->b, verdict->a);
            return;
        case DROVER_WHY_NEVER_MEM:
            drover_why_bytes (verdict->a, have, sizeof have);
            drover_why_bytes (verdict->b, want, sizeof want);
            snprintf (text, size, "mem %s>%s", want, have);
            return;
        case DROVER_WHY_NEVER_ALL:
            snprintf (text, size, "no worker fits all");
            return;
        case DROVER_WHY_POOL_START:
            snprintf (text, size, "starting %s", verdict->text);
            return;
        case DROVER_WHY_POOL_NOFIT:
            snprintf (text, size, "no type fits");
            return;
        case DROVER_WHY_AFFINITY:
            snprintf (text, size, "affinity %s", verdict->nnames? verdict->names [0]: "none");
            return;
        case DROVER_WHY_WHEN_USABLE:
            snprintf (text, size, "%s",
                      verdict->a == DROVER_WHY_PROBATION? "probation":
                      verdict->a == DROVER_WHY_DRAINING? "draining":
                      verdict->a == DROVER_WHY_LOW_DISK? "low disk":
                      verdict->a == DROVER_WHY_LENT? "lent": "held");
            return;
        case DROVER_WHY_PARENT:
            snprintf (text, size, "after %" PRIu64, verdict->a);
            return;
        case DROVER_WHY_BEGIN:
        case DROVER_WHY_RETRY:
            s_clock (verdict->a, clock, sizeof clock);
            snprintf (text, size, "%s %s", verdict->code == DROVER_WHY_BEGIN? "begin": "retry",
                      clock);
            return;
        case DROVER_WHY_ARRAY_LIMIT:
            snprintf (text, size, "array limit");
            return;
        case DROVER_WHY_GROUP:
            snprintf (text, size, "%" PRIu64 "/%" PRIu64 " ended", verdict->a, verdict->b);
            return;
        case DROVER_WHY_NEVER_DEVICES:
            snprintf (text, size, "%s %" PRIu64 ">%" PRIu64, verdict->text, verdict->b,
                      verdict->a);
            return;
        case DROVER_WHY_QUOTA:
            snprintf (text, size, "quota %s", verdict->text);
            return;
    }
    if (verdict->code != DROVER_WHY_NEXT && verdict->code != DROVER_WHY_FITS_WHEN
    &&  verdict->code != DROVER_WHY_AFTER) {
        //  A later broker's verdict: shown as its number (PROTOCOL.md §7.25)
        snprintf (text, size, "reason %u", verdict->code);
        return;
    }
    if (ahead)
        snprintf (text, size, "behind %u", ahead);
    else
    if (verdict->code == DROVER_WHY_AFTER)
        snprintf (text, size, "after task %" PRIu64, verdict->a);
    else
        snprintf (text, size, "%s", verdict->code == DROVER_WHY_NEXT? "next": "busy");
}
