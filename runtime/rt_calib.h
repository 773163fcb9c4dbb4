/*
 * This node's costs measured, not guessed.
 *
 * By default (GDC_CALIBRATION=job) a job measures, when its world is made, the numbers on
 * which the model weighs a copy by cross-memory attach (one kernel copy) against the two
 * memcpys through shared memory: the kernel copy's cost per call and in-cache rate, and a
 * copy and a reduction out of a peer's shared memory in cache. Local ranks 0 and 1 of each
 * node measure them over their fresh segments in a few milliseconds, both copying at once
 * as the ranks of a collective do; the world's ranks gather every node's and take the worst, so every
 * rank prices alike. Which copy wins differs from machine to machine (the AMD development
 * VM's kernel copy ran at a half to a fifth of memcpy's rate, the Intel one's near it), and
 * a measurement taken in the job is taken in the state the job runs in (the VM's rates move
 * 2 to 3 times between states minutes apart). The two run pinned to two CPUs of their set
 * meanwhile, and the node's other ranks sleep, so that ranks outnumbering the cores measure
 * too (4 ranks on 2 cores measured as 2 do). Where cross-memory attach does not work, or
 * the two ranks still took turns on one CPU (a set of one CPU), nothing is measured and
 * every rank keeps the built-in numbers.
 *
 * GDC_CALIBRATION=auto measures every host number (memcpy, a reduction, gdc's shared-memory
 * signal, cross-memory attach, UCX's shared memory) once per host and gdc version and keeps
 * them in the user's cache directory (gdinfo --calibrate probes again and rewrites it). It
 * is not the default: on the development VM those numbers made the model choose UCX
 * algorithms that ran slower than the shared-memory ones it chose with the built-in numbers
 * (bench/RESULTS.md), because the model prices a UCX message as latency + bytes / bandwidth
 * and gdc's UCX steps cost more than that inside a collective.
 *
 * With GDC_CALIBRATION=auto, at gdc_init: before PMIx starts, a rank that finds no file for
 * its host takes the file's lock and probes, in a process that has no threads yet (the
 * probes fork); the others go on. Each node's first rank then reads its node's file
 * (waiting for the prober, if any) and publishes the numbers with its PMIx record; after
 * the fence every rank takes, number by number, the worst of every node's. GDC_CALIBRATION
 * may instead name a file (a site's calibration of a node type), or be off: the cost
 * model then keeps its profile's numbers.
 */
#ifndef GDC_RT_CALIB_H
#define GDC_RT_CALIB_H

#include <gdc.h>

#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* What one node measured; 0 where a probe could not run (the model keeps its own number). */
typedef struct gdc_rt_calib_numbers {
    double copy_gbs;    /* memcpy of 8 MiB by one core */
    double reduce_gbs;  /* float sum into a vector, bytes of one operand per second */
    double signal_us;   /* a shared-memory counter seen by another process: half a round trip */
    double cma_gbs;     /* process_vm_readv of 8 MiB from another process */
    double cma_us;      /* ... of 4 KiB: the call's own cost, its system call and page pinning */
    double copy_cached_gbs; /* memcpy of 256 KiB (a shared-memory chunk) that another process has
                               just written into shared memory: its lines come from that core */
    double cma_cached_gbs;  /* process_vm_readv of 256 KiB that the other process has just written */
    double reduce_cached_gbs; /* float sum into 256 KiB of 256 KiB the other process has just written in
                                 shared memory */
    double ucx_shm_us;  /* a UCX tag message of 8 B between two processes: half a round trip */
    double ucx_shm_gbs; /* a UCX tag message of 4 MiB the same way */
    double copy_shared_cached_gbs; /* memcpy of 256 KiB into shared memory the other process has just
                                      read: each line taken back from that core's cache */
    double copy_peer_small_gbs; /* memcpy of 16 KiB the other process has just written into shared
                                   memory: a copy of a few KiB, whose lines come out of the writer's
                                   first-level cache */
    double cma_copy_ratio; /* process_vm_readv's time of 4 MiB over memcpy's: what a job measures of
                              the rates from memory, whose ratio decides between one copy across and
                              two through shared memory for large calls */
    /* (optional in a file, 0 where it lacks them: cma_us and the cached rates from gdc 0.1.0
     * of 2026-12-06 06:00, copy_shared_cached and copy_peer_small from 12:00, cma_copy_ratio
     * from 21:30) */
} gdc_rt_calib_numbers_t;

/* The numbers in force (after gdc_rt_init, or gdc_rt_calib_local for tools). */
typedef struct gdc_rt_calib {
    int                    valid;       /* 0: none; the model keeps its built-in numbers */
    gdc_rt_calib_numbers_t n;
    char                   source[PATH_MAX + 64]; /* where they come from, for gdinfo and the log */
} gdc_rt_calib_t;

extern gdc_rt_calib_t gdc_rt_calib;

/* GDC_CALIBRATION: "job" (the default), "off", "auto" or a file's path. */
extern const char *gdc_rt_calib_setting;

/* Run every probe on this node (about half a second; forks, so call it before any thread
 * starts). A probe that cannot run leaves its number 0 and says why at warn. */
gdc_status_t gdc_rt_calib_probe(gdc_rt_calib_numbers_t *out);

/* In a job (GDC_CALIBRATION=job): local ranks 0 (parent) and 1 of a node measure
 * cross-memory attach's call and the in-cache rates over area, gdc_rt_calib_pair_bytes of
 * shared memory both map, zero at first; peer is the other's pid. Each side runs pinned to a
 * CPU of its set meanwhile (gdc_rt_calib_pair_pin), its set given back after. The parent
 * gets the numbers (the others 0); GDC_ERR_UNSUPPORTED where the probe failed (said at warn)
 * or the two took turns on one CPU (said at info). */
size_t       gdc_rt_calib_pair_bytes(void);
gdc_status_t gdc_rt_calib_probe_pair(int parent, void *area, pid_t peer, gdc_rt_calib_numbers_t *out);
/* The node's other ranks meanwhile: sleep until the parent is done with area (or the probe's
 * deadline has passed), so that where the ranks outnumber the cores the pair has them. */
void gdc_rt_calib_pair_wait(void *area);
/* Pin the calling thread, local rank index (0 or 1) of the pair, to the index-th CPU of its
 * set, where the set has two or more: 1, and *was holds the set to restore; else 0. Two
 * ranks of one set then run on two CPUs, whatever else the node's other ranks do. */
int gdc_rt_calib_pair_pin(int index, cpu_set_t *was);
/* The nth CPU (from 0) of set, or -1. */
int gdc_rt_calib_nth_cpu(const cpu_set_t *set, int nth);

/* The cache file of this host and gdc version: ${XDG_CACHE_HOME:-$HOME/.cache}/gdc/
 * calibration-HOST-VERSION. -1 when neither variable gives a directory. */
int gdc_rt_calib_cache_path(char *buf, size_t len);

/* Write numbers to path (atomically: a temporary file renamed), creating its directory. */
gdc_status_t gdc_rt_calib_write(const char *path, const gdc_rt_calib_numbers_t *n, const char *how);
/* Read a calibration file; GDC_ERR_INVALID_ARG (logged with the line) when it is not one.
 * The same from an open stream; where names it in messages. */
gdc_status_t gdc_rt_calib_read(const char *path, gdc_rt_calib_numbers_t *n);
gdc_status_t gdc_rt_calib_read_stream(FILE *f, const char *where, gdc_rt_calib_numbers_t *n);

/* Fold other into worst, number by number: the lower bandwidth, the higher latency; an
 * unmeasured number (0) on either side leaves it unmeasured. */
void gdc_rt_calib_combine(gdc_rt_calib_numbers_t *worst, const gdc_rt_calib_numbers_t *other);

/* One line of the numbers, for logs and gdinfo. */
void gdc_rt_calib_format(const gdc_rt_calib_numbers_t *n, char *buf, size_t len);

/* A node's part of the job's own measurement (GDC_CALIBRATION=job), which the world's ranks
 * gather when the world is made: local rank 0 of a node of two ranks or more says whether
 * its node measured, the others nothing. */
enum { GDC_RT_CALIB_JOB_NONE, GDC_RT_CALIB_JOB_MEASURED, GDC_RT_CALIB_JOB_NOT_MEASURED };
typedef struct gdc_rt_calib_job_record {
    uint32_t               magic;
    uint32_t               state;
    gdc_rt_calib_numbers_t n; /* cma_us and the in-cache rates; the rest 0 */
} gdc_rt_calib_job_record_t;

struct gdc_rt_shm;
int  gdc_rt_calib_in_job(void);
/* This rank's part: local ranks 0 and 1 probe over shm's first data area, each pinned to a
 * CPU of its set meanwhile, where cross-memory attach works; the node's other ranks sleep
 * until they are done. 1 where this rank took part in a probe (its area then wants zeroing
 * once both are past it), else 0. */
int gdc_rt_calib_job_measure(const struct gdc_rt_shm *shm, gdc_rt_calib_job_record_t *rec);
/* Every rank, with the world's records: the worst of the nodes' numbers in force, or none
 * where a node of two ranks or more could not measure. */
void gdc_rt_calib_job_agree(const gdc_rt_calib_job_record_t *all, int size);

/* The steps of gdc_rt_init: before PMIx (probe where this host has no file), after PMIx's
 * start (the node's first rank publishes), after the fence (every rank agrees). */
gdc_status_t gdc_rt_calib_prepare(void);
gdc_status_t gdc_rt_calib_publish(void);
void         gdc_rt_calib_agree(void);
void         gdc_rt_calib_finalize(void);

/* For tools without a job (gdinfo): this node's numbers as a job would find them, without
 * probing; gdc_rt_calib says what is in force. */
void gdc_rt_calib_local(void);

#endif
