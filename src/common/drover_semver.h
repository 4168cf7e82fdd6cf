/*  =========================================================================
    drover_semver - release strings ("0.7.0"): read and ordered

    A release is MAJOR.MINOR[.PATCH], each a decimal number; a missing
    PATCH is 0. What a peer says may go on after that: "-rc1" (a
    pre-release, older than the release itself, as semantic versioning
    orders them) or "+build" (ignored). A setting takes only the plain
    form. A plain class of functions: no state, no I/O.
    =========================================================================
*/

#ifndef DROVER_SEMVER_H_INCLUDED
#define DROVER_SEMVER_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  A release read from text
typedef struct {
    uint32_t major;             //  MAJOR
    uint32_t minor;             //  MINOR
    uint32_t patch;             //  PATCH, 0 if not given
    bool pre;                   //  a pre-release ("-..." after it): older than plain
} drover_semver_t;

//  Read a release as a peer says it (a suffix "-..." or "+..." allowed).
//  Returns 0, or -1 if text does not start with MAJOR.MINOR.
int
    drover_semver_parse (const char *text, drover_semver_t *semver);

//  Tell whether text is a plain release, MAJOR.MINOR or MAJOR.MINOR.PATCH,
//  as a setting takes it
bool
    drover_semver_plain (const char *text);

//  Order two releases: <0 if left is older, 0 if the same, >0 if newer
int
    drover_semver_compare (const drover_semver_t *left, const drover_semver_t *right);

#ifdef __cplusplus
}
#endif

#endif
