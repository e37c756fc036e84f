/* sy_input.h — opening an input file (engine-private).
 *
 * Every engine read of a file by path goes through sy__input_open, so no
 * input can hang the engine or be mistaken for an empty file: only regular
 * files are read. The open is non-blocking (a FIFO with no writer cannot
 * block it), the type is checked on the open descriptor (no race with a
 * rename), then blocking reads are restored. */
#ifndef SY_INPUT_H
#define SY_INPUT_H

#include <stdio.h>
#include <sys/types.h>
#include "sy_base.h"

/* Opens `path` for binary reading into *out (close with fclose).
 * Fails with SY_E_IO naming the file and the system's reason ("No such file
 * or directory", "Permission denied"), or SY_E_INVALID_INPUT for a directory,
 * FIFO, device or socket. */
sy_status sy__input_open(const char *path, FILE **out, sy_error *err);

/* "a directory", "a FIFO (named pipe)", "a device", "a socket" or "not a
 * regular file": what a file of `mode` is, for messages. */
const char *sy__file_kind(mode_t mode);

#endif
