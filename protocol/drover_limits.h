/*  =========================================================================
    drover_limits - the protocol's limits (PROTOCOL.md §15, "Limits")

    Shared by the three codecs: wire messages (drover_msg), the exec body
    (drover_exec) and events (drover_event). Each decoder refuses anything
    past these before it allocates for it.
    =========================================================================
*/

#ifndef DROVER_LIMITS_H_INCLUDED
#define DROVER_LIMITS_H_INCLUDED

#define DROVER_ID_MAX           64          //  worker id, bytes
#define DROVER_LABELS_MAX       16          //  labels per worker or task
#define DROVER_LABEL_MAX        128         //  one "key=value" label, bytes
#define DROVER_REASON_MAX       256         //  reason / text string, bytes
#define DROVER_ARGV_MAX         1024        //  argv entries
#define DROVER_ENV_MAX          256         //  environment entries
#define DROVER_STRING_MAX       65536       //  one argv/env/cwd string, bytes
#define DROVER_INPUT_MAX        (1 << 20)   //  stdin / payload bytes
#define DROVER_OUTPUT_MAX       (1 << 20)   //  captured stdout or stderr, bytes
#define DROVER_BODY_MAX         (2 << 20)   //  encoded exec body, bytes
#define DROVER_AHEAD_MAX        64          //  offers a worker holds ahead (HELLO, WELCOME)
#define DROVER_RUNNING_MAX      4096        //  task refs in WORKER HELLO
#define DROVER_ROWS_MAX         10000       //  rows in a WORKER/TASK TABLE
#define DROVER_WAIT_MAX         10000       //  task ids in one TASK WAIT
#define DROVER_AFTER_MAX        1024        //  parents in one TASK SUBMIT's after list
#define DROVER_ARRAY_MAX        10000000    //  elements of one array
#define DROVER_STEPS_MAX        1000        //  steps in one WORKFLOW SUBMIT
#define DROVER_RETRY_MAX_DELAY  600000      //  msec a retry waits at most by default
#define DROVER_SUMMARY_MAX      80          //  TASK TABLE row summary, bytes
#define DROVER_DEPTH_MAX        4           //  msgpack nesting depth
#define DROVER_MSG_MAX          (4 << 20)   //  a whole encoded message, bytes
#define DROVER_STATE_ID_SIZE    32          //  broker state id: hex digits, exactly
#define DROVER_KEY_MAX          128         //  submit key, bytes
#define DROVER_EVENT_MAX        1024        //  one event body in EVENT LIST, bytes
#define DROVER_REPLAY_MAX       1000        //  events in one EVENT LIST
#define DROVER_WHYS_MAX         64          //  items in one TASK EXPLANATION
#define DROVER_WHY_NAMES_MAX    4           //  worker names in one item
#define DROVER_ROW_REASON_MAX   64          //  TASK TABLE row reason, bytes
#define DROVER_ENDPOINT_MAX     256         //  a broker endpoint in REDIRECT, QUEUE TABLE, bytes
#define DROVER_QUEUE_NAME_MAX   64          //  a named queue's name, bytes
#define DROVER_QUEUES_MAX       1024        //  rows in a QUEUE TABLE
#define DROVER_QUEUE_ENDPOINTS_MAX  64      //  endpoints of one queue in QUEUE TABLE
#define DROVER_STRATEGY_MAX     16          //  QUEUE TABLE's strategy name, bytes
#define DROVER_ASSIGNED_MAX     1024        //  TASK STARTED's assigned indices, bytes
#define DROVER_MEMBERS_MAX      4096        //  SHARE ADMIN's members, comma-separated, bytes
#define DROVER_QUOTA_MAX        1024        //  SHARE TABLE row's quota text, bytes
#define DROVER_WEIGHT_MAX       1000000     //  an account's or owner's share weight
#define DROVER_PATH_MAX         4096        //  STATE BACKUP's file name, bytes

#endif
