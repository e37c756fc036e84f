#include <libde265/de265.h>
