/* Environment arrays for the ranks: NULL-terminated, every string malloc'd, so that
 * PMIx_server_setup_fork can add to them with its own realloc/free. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gdrun.h"

static size_t env_count(char *const *env)
{
    size_t n = 0;

    while (env != NULL && env[n] != NULL) {
        n++;
    }
    return n;
}

void gdrun_env_free(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        free(env[i]);
    }
    free(env);
}

char **gdrun_env_copy(char *const *src)
{
    size_t n    = env_count(src);
    char **copy = calloc(n + 1, sizeof(char *));

    if (copy == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if ((copy[i] = strdup(src[i])) == NULL) {
            gdrun_env_free(copy);
            return NULL;
        }
    }
    return copy;
}

int gdrun_env_valid_name(const char *name, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)name[0]) || name[0] == '_')) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_')) {
            return 0;
        }
    }
    return 1;
}

/* The index of env's assignment to the name of name_len characters, or -1. */
static long env_find(char *const *env, const char *name, size_t name_len)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], name, name_len) == 0 && env[i][name_len] == '=') {
            return (long)i;
        }
    }
    return -1;
}

/* Take ownership of assignment ("NAME=VALUE"), replacing any NAME already there. */
static int env_take(char ***env, char *assignment)
{
    long   at = env_find(*env, assignment, strcspn(assignment, "="));
    size_t n  = env_count(*env);
    char **grown;

    if (at >= 0) {
        free((*env)[at]);
        (*env)[at] = assignment;
        return 0;
    }
    grown = realloc(*env, (n + 2) * sizeof(char *));
    if (grown == NULL) {
        free(assignment);
        return -1;
    }
    grown[n]     = assignment;
    grown[n + 1] = NULL;
    *env         = grown;
    return 0;
}

int gdrun_env_has(char *const *env, const char *name)
{
    return env_find(env, name, strlen(name)) >= 0;
}

int gdrun_env_put(char ***env, const char *assignment)
{
    char *copy = strdup(assignment);

    return copy != NULL ? env_take(env, copy) : -1;
}

int gdrun_env_set(char ***env, const char *name, const char *value)
{
    size_t len  = strlen(name) + strlen(value) + 2;
    char  *copy = malloc(len);

    if (copy == NULL) {
        return -1;
    }
    strcpy(copy, name);
    strcat(copy, "=");
    strcat(copy, value);
    return env_take(env, copy);
}
