/* The planner's items in its item store (migrate/itemstore): the encoding of a cw_plan_item and
 * the orders the reports walk. Internal to migrate/plan.c and migrate/plan_items.c; callers use
 * the cw_plan_item_* functions of plan.h. */
#ifndef CW_PLAN_ITEMS_H
#define CW_PLAN_ITEMS_H

#include "migrate/plan.h"

/* Appends `it` as the next item. `counted`: its refs count among their jobs' sources. */
int cw_plan_item_append(cw_plan *p, const cw_plan_item *it, int counted,
                        cw_error *err) CW_MUST_CHECK;
/* 1 when item i's refs count among their jobs' sources. */
int cw_plan_item_counted(const cw_plan *p, size_t i);
/* Writes the (kind, namespace, name) order of the items and each job's sources in that order
 * into the item file (plan: sorted, order_off, srcs_off; jobs: src_start). */
int cw_plan_sort_items(cw_plan *p, cw_error *err) CW_MUST_CHECK;

#endif
