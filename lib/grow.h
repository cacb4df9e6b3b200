/* Room for one more element in a growable array (doubling, `first` elements at the start). */
#ifndef CW_GROW_H
#define CW_GROW_H

#include <stdlib.h>

#include "lib/error.h"

/* *arr holds len elements of `size` bytes in *cap; on return it has room for len + 1.
 * CW_ENOMEM leaves *arr and *cap as they were. */
static inline int cw_grow(void **arr, size_t *cap, size_t len, size_t size, size_t first)
{
    if (len < *cap)
        return CW_OK;
    size_t ncap = *cap ? *cap * 2 : first;
    void *p = realloc(*arr, ncap * size);
    if (!p)
        return CW_ENOMEM;
    *arr = p;
    *cap = ncap;
    return CW_OK;
}

#endif
