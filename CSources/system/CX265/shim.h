#include <x265.h>
