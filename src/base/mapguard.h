/*
 * mapguard.h — turn the SIGBUS of a mapped file that shrank under us (another
 * process truncated or rewrote it) into an error the reader can report,
 * instead of the process dying.
 *
 *   mapguard_add(map, len);                  // after mmap
 *   sigjmp_buf jb;
 *   if (sigsetjmp(jb, 0)) { ...the file shrank: clean up, return an error... }
 *   mapguard_arm(&jb);                       // this thread may now fault safely
 *   ... read the mapping ...
 *   mapguard_disarm();
 *   mapguard_remove(map);                    // before munmap
 *
 * The handler jumps back only for a fault inside a registered mapping on a
 * thread that is armed; any other SIGBUS gets the disposition there was
 * before (normally: the process ends). Code between arm and disarm must
 * tolerate being abandoned at any load from the mapping: no locks held, and
 * whatever it was building is thrown away.
 *
 * Layer: base.
 */
#ifndef GF_MAPGUARD_H
#define GF_MAPGUARD_H

#include "base/gf.h"

#include <setjmp.h>

void mapguard_add(const void *map, size_t len);
void mapguard_remove(const void *map);

/* The calling thread's recovery point (NULL: none). */
void mapguard_arm(sigjmp_buf *jb);
void mapguard_disarm(void);

#endif
