/* sy_jpeg_error.h — libjpeg error handling that never leaves C: error_exit
 * longjmps back into the engine function that called libjpeg; warnings are
 * counted, and a premature end of file is remembered as truncation. */
#ifndef SY_JPEG_ERROR_H
#define SY_JPEG_ERROR_H

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct sy__jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int warnings;
    int truncated; /* libjpeg hit end of file before the image ended */
    int write_errno; /* JERR_FILE_WRITE: the failed fwrite's errno (EFBIG, ENOSPC, EIO), else 0 */
    char message[JMSG_LENGTH_MAX];
} sy__jpeg_error;

/* Installs the handlers on `cinfo_err` and returns it (for cinfo.err). */
struct jpeg_error_mgr *sy__jpeg_error_init(sy__jpeg_error *e);

#endif
