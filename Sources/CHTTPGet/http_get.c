#include "http_get.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libcurl's ABI numbers (curl/curl.h): option = type base + number, so that the project needs no curl headers.
enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_RANGE = 10007, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_LOW_SPEED_LIMIT = 19, OPT_LOW_SPEED_TIME = 20, OPT_USERAGENT = 10018, OPT_FOLLOWLOCATION = 52,
    OPT_MAXREDIRS = 68, OPT_CONNECTTIMEOUT = 78, OPT_NOSIGNAL = 99, OPT_PROTOCOLS = 181, OPT_REDIR_PROTOCOLS = 182,
    INFO_RESPONSE_CODE = 0x200000 + 2, PROTO_HTTP_HTTPS = (1 << 0) | (1 << 1), GLOBAL_ALL = 3, ERROR_SIZE = 256,
};

typedef void CURL;
typedef int (*global_init_fn)(long);
typedef CURL *(*easy_init_fn)(void);
// Variadic, as libcurl declares them: calling through a non-variadic type would break the calling convention.
typedef int (*easy_setopt_fn)(CURL *, int, ...);
typedef int (*easy_getinfo_fn)(CURL *, int, ...);
typedef int (*easy_perform_fn)(CURL *);
typedef void (*easy_cleanup_fn)(CURL *);
typedef const char *(*easy_strerror_fn)(int);

static struct {
    easy_init_fn init;
    easy_setopt_fn setopt;
    easy_getinfo_fn getinfo;
    easy_perform_fn perform;
    easy_cleanup_fn cleanup;
    easy_strerror_fn strerror;
} curl;
static const char *load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so", "libcurl.4.dylib", "libcurl.dylib"};
    void *handle = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !handle; i++) handle = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        load_failure = "downloads need libcurl (libcurl.so.4; apt-get install libcurl4)";
        return;
    }
    global_init_fn global_init = (global_init_fn)dlsym(handle, "curl_global_init");
    curl.init = (easy_init_fn)dlsym(handle, "curl_easy_init");
    curl.setopt = (easy_setopt_fn)dlsym(handle, "curl_easy_setopt");
    curl.getinfo = (easy_getinfo_fn)dlsym(handle, "curl_easy_getinfo");
    curl.perform = (easy_perform_fn)dlsym(handle, "curl_easy_perform");
    curl.cleanup = (easy_cleanup_fn)dlsym(handle, "curl_easy_cleanup");
    curl.strerror = (easy_strerror_fn)dlsym(handle, "curl_easy_strerror");
    if (!global_init || !curl.init || !curl.setopt || !curl.getinfo || !curl.perform || !curl.cleanup || !curl.strerror) {
        load_failure = "the libcurl found lacks the curl_easy functions";
    } else if (global_init(GLOBAL_ALL) != 0) {
        load_failure = "curl_global_init failed";
    }
}

struct sink {
    lite_http_write_fn write;
    void *context;
};

static size_t forward(char *data, size_t size, size_t count, void *context) {
    struct sink *sink = context;
    size_t bytes = size * count;
    return sink->write(data, bytes, sink->context) == bytes ? bytes : 0;
}

int lite_http_get(const char *url, long long resume_from, long connect_timeout, long idle_timeout,
                  lite_http_write_fn write, void *context, long *status, char *message, size_t message_capacity) {
    if (message_capacity > 0) message[0] = 0;
    *status = 0;
    pthread_once(&load_once, load);
    if (load_failure) {
        snprintf(message, message_capacity, "%s", load_failure);
        return -1;
    }
    CURL *handle = curl.init();
    if (!handle) {
        snprintf(message, message_capacity, "curl_easy_init failed");
        return -1;
    }
    char error[ERROR_SIZE] = {0};
    char range[32];
    struct sink sink = {write, context};
    curl.setopt(handle, OPT_URL, url);
    curl.setopt(handle, OPT_PROTOCOLS, (long)PROTO_HTTP_HTTPS);
    curl.setopt(handle, OPT_REDIR_PROTOCOLS, (long)PROTO_HTTP_HTTPS);
    curl.setopt(handle, OPT_FOLLOWLOCATION, 1L);
    curl.setopt(handle, OPT_MAXREDIRS, 10L);
    curl.setopt(handle, OPT_NOSIGNAL, 1L);
    curl.setopt(handle, OPT_CONNECTTIMEOUT, connect_timeout);
    curl.setopt(handle, OPT_LOW_SPEED_LIMIT, 1L);
    curl.setopt(handle, OPT_LOW_SPEED_TIME, idle_timeout);
    curl.setopt(handle, OPT_USERAGENT, "litevision");
    curl.setopt(handle, OPT_ERRORBUFFER, error);
    curl.setopt(handle, OPT_WRITEFUNCTION, forward);
    curl.setopt(handle, OPT_WRITEDATA, &sink);
    if (resume_from > 0) {
        snprintf(range, sizeof range, "%lld-", resume_from);
        curl.setopt(handle, OPT_RANGE, range);
    }
    int code = curl.perform(handle);
    long response = 0;
    curl.getinfo(handle, INFO_RESPONSE_CODE, &response);
    *status = response;
    if (code != 0) snprintf(message, message_capacity, "%s", error[0] ? error : curl.strerror(code));
    curl.cleanup(handle);
    return code;
}
