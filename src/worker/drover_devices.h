/*  =========================================================================
    drover_devices - a worker's counted devices (GPUs and any other counted
    resource) and which running task holds each of them

    The inventory is a few names (ids of [a-z0-9_]), each with its device
    indices: given by the operator (`--device gpu=4`, the indices 0..3, or
    `--device gpu=0,1,3`, those indices), or, for gpu when none is given,
    detected: the "GPU N:" lines of `nvidia-smi -L` (run with a timeout; a
    missing binary or a failing run is no GPU), else the /dev/nvidiaN
    entries. Where detection looks (a root standing for /, the command to
    run) can be changed, so that tests fake both.

    A task (a holder: any string, the worker uses "task/attempt") takes a
    count of free indices of a name, the lowest first, and gives all of
    them back at once when its processes are gone; an index is never held
    by two holders. What the task is told: DROVER_DEVICES_<NAME> (the name
    upper-cased) for every name of the inventory, its indices comma-
    separated (empty if it took none), and for gpu also
    CUDA_VISIBLE_DEVICES (the same list) and CUDA_DEVICE_ORDER=PCI_BUS_ID
    (so CUDA numbers GPUs as nvidia-smi does).
    =========================================================================
*/

#ifndef DROVER_DEVICES_H_INCLUDED
#define DROVER_DEVICES_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_devices_t drover_devices_t;

#define DROVER_DEVICES_NAMES_MAX    16      //  device names per worker
#define DROVER_DEVICES_NAME_MAX     32      //  characters of a name
#define DROVER_DEVICES_COUNT_MAX    1024    //  devices of one name
#define DROVER_DEVICES_INDEX_MAX    4095    //  highest index
#define DROVER_DEVICES_PROBE_MSEC   5000    //  msec nvidia-smi may take before it is killed
#define DROVER_DEVICES_GPU          "gpu"   //  the name detection fills

//  One name and count a task asks for
typedef struct {
    const char *name;               //  device name, borrowed
    uint32_t count;                 //  how many of its devices, >= 1
} drover_devices_request_t;

//  Create an empty inventory; detection looks at / and runs nvidia-smi
//  from the PATH
drover_devices_t *
    drover_devices_new (void);

//  Destroy an inventory; harmless on NULL
void
    drover_devices_destroy (drover_devices_t **self_p);

//  Add what one --device value says: NAME=COUNT (the indices 0..COUNT-1;
//  0: none of that name, and no detection of it) or NAME=LIST, a comma-
//  separated list of indices and ranges I-J (one index alone: "3,").
//  Returns 0, or -1 with why in *error_p (caller frees with zstr_free):
//  not NAME=VALUE, a bad name, a bad count or index, an index listed
//  twice, a name given twice, too many names.
int
    drover_devices_parse (drover_devices_t *self, const char *spec, char **error_p);

//  Say where detection looks: root stands for / (NULL: /), command is the
//  nvidia-smi to run (NULL: nvidia-smi from the PATH; "": none is run),
//  killed after timeout msec (0: DROVER_DEVICES_PROBE_MSEC)
void
    drover_devices_set_probe (drover_devices_t *self, const char *root, const char *command,
                              uint32_t timeout);

//  Detect the GPUs if no gpu was given: nvidia-smi -L, else <root>/dev/
//  nvidiaN. Returns how many were found (0: none, and no gpu is added).
uint32_t
    drover_devices_detect (drover_devices_t *self);

//  Return where name's devices come from: "given", "nvidia-smi",
//  "/dev/nvidia*", or NULL if the inventory has no such name
const char *
    drover_devices_source (drover_devices_t *self, const char *name);

//  Return the number of names in the inventory (names with devices)
size_t
    drover_devices_size (drover_devices_t *self);

//  Return the name at position index (0..size-1, in the order added), or NULL
const char *
    drover_devices_name (drover_devices_t *self, size_t index);

//  Return how many devices of name the worker has (0 if unknown)
uint32_t
    drover_devices_total (drover_devices_t *self, const char *name);

//  Return how many devices of name no task holds (0 if unknown)
uint32_t
    drover_devices_free (drover_devices_t *self, const char *name);

//  Describe the inventory for a log line: "gpu=0-3 (nvidia-smi) fpga=0,2
//  (given)", or "none". Caller frees with zstr_free.
char *
    drover_devices_describe (drover_devices_t *self);

//  Give holder count free devices of name, the lowest indices first.
//  Returns 0, or -1 with why in *error_p (caller frees), nothing taken:
//  no such name, or fewer free than count.
int
    drover_devices_take (drover_devices_t *self, const char *holder, const char *name,
                         uint32_t count, char **error_p);

//  Give back every device holder holds, once its processes are gone.
//  Returns how many were freed (0 if it held none).
uint32_t
    drover_devices_give_back (drover_devices_t *self, const char *holder);

//  Return the indices of name that holder holds, comma-separated ("" if
//  none). Caller frees with zstr_free.
char *
    drover_devices_held (drover_devices_t *self, const char *holder, const char *name);

//  Return what holder holds, as TASK STARTED says it: "NAME=I,J" per name
//  it holds devices of, in the inventory's order, joined by ';'
//  ("gpu=0,2;fpga=4"), "" if none. Caller frees with zstr_free.
char *
    drover_devices_assigned (drover_devices_t *self, const char *holder);

//  Return the environment entries ("NAME=VALUE" strings) holder's task
//  gets: DROVER_DEVICES_<NAME> for every name, CUDA_VISIBLE_DEVICES and
//  CUDA_DEVICE_ORDER if the inventory has gpu. Caller destroys the list.
zlistx_t *
    drover_devices_env (drover_devices_t *self, const char *holder);

//  What an offer asks for, all or nothing: take each request's count for
//  holder and return its environment entries in *env_p (caller destroys
//  the list). Returns 0, or -1 with why in *error_p (caller frees) and
//  nothing taken: an unknown name, a name asked twice, a count of 0, too
//  few free, or a holder that holds devices already.
int
    drover_devices_assign (drover_devices_t *self, const char *holder,
                           const drover_devices_request_t *requests, size_t count,
                           zlistx_t **env_p, char **error_p);

#ifdef __cplusplus
}
#endif

#endif
