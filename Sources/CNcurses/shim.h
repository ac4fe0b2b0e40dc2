#ifndef RECEIPTDESK_CNCURSES_SHIM_H
#define RECEIPTDESK_CNCURSES_SHIM_H

/* SwiftPM drops pkg-config -D flags, so the wide-character API is switched on here. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <locale.h>
#include <langinfo.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <wchar.h>
#include <ncursesw/curses.h>

/* C globals and macros that Swift cannot use directly (Swift 6 rejects the globals as shared
   mutable state; the A_* and mouse masks are function-like macros). */

static inline WINDOW *cn_stdscr(void) { return stdscr; }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_colors(void) { return COLORS; }
static inline int cn_color_pairs(void) { return COLOR_PAIRS; }

static inline attr_t cn_attr_normal(void) { return A_NORMAL; }
static inline attr_t cn_attr_bold(void) { return A_BOLD; }
static inline attr_t cn_attr_dim(void) { return A_DIM; }
static inline attr_t cn_attr_reverse(void) { return A_REVERSE; }
static inline attr_t cn_attr_underline(void) { return A_UNDERLINE; }

/* wcwidth is declared by glibc only under _XOPEN_SOURCE, which the Glibc module lacks. */
extern int wcwidth(wchar_t c);
static inline int cn_wcwidth(wchar_t c) { return wcwidth(c); }

static inline int cn_key_resize(void) { return KEY_RESIZE; }
static inline int cn_key_mouse(void) { return KEY_MOUSE; }
static inline int cn_key_code_yes(void) { return KEY_CODE_YES; }

/* Sets the locale from the environment; when that is not UTF-8, falls back to C.UTF-8 (the only
   UTF-8 locale Debian always has). Returns 1 when the resulting codeset is UTF-8. */
static inline int cn_setlocale_utf8(void) {
    setlocale(LC_ALL, "");
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL || strcmp(codeset, "UTF-8") != 0) {
        setlocale(LC_ALL, "C.UTF-8");
        codeset = nl_langinfo(CODESET);
    }
    return codeset != NULL && strcmp(codeset, "UTF-8") == 0;
}

/* Writes one cell: a spacing character plus up to four combining characters, with attributes
   and a colour pair, at (y, x). */
static inline int cn_put_cell(int y, int x, const wchar_t *text, attr_t attributes, short pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) == ERR) return ERR;
    return mvadd_wch(y, x, &cell);
}

/* Mouse: clicks of button 1 and the wheel (buttons 4 and 5). */
static inline void cn_enable_mouse(void) {
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
}

/* Reads the pending mouse event: kind 1 click, 2 wheel up, 3 wheel down, 0 anything else. */
static inline int cn_read_mouse(int *y, int *x, int *kind) {
    MEVENT event;
    if (getmouse(&event) != OK) return ERR;
    *y = event.y;
    *x = event.x;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) *kind = 1;
    else if (event.bstate & BUTTON4_PRESSED) *kind = 2;
    else if (event.bstate & BUTTON5_PRESSED) *kind = 3;
    else *kind = 0;
    return OK;
}

/* Bracketed paste (xterm, tmux, most terminals): a paste arrives between ESC [ 200 ~ and
   ESC [ 201 ~, so it can be told from typing. Written straight to the terminal (async-signal-safe). */
static inline void cn_bracketed_paste(int on) {
    if (on) { ssize_t ignored = write(STDOUT_FILENO, "\033[?2004h", 8); (void)ignored; }
    else { ssize_t ignored = write(STDOUT_FILENO, "\033[?2004l", 8); (void)ignored; }
}

/* The terminal is restored whatever ends the process: the handler leaves curses mode (and
   bracketed paste), then re-raises the signal with its default action so the exit status still
   tells what happened. */
static void cn_restore_and_reraise(int signal_number) {
    cn_bracketed_paste(0);
    endwin();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static inline void cn_install_restoring_handlers(void) {
    const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
    /* A parent may hand down a mask that blocks them (a process spawned from a thread pool):
       this thread takes them, so the handler runs and the terminal is restored. */
    sigset_t handled;
    sigemptyset(&handled);
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaddset(&handled, signals[i]);
    pthread_sigmask(SIG_UNBLOCK, &handled, NULL);
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cn_restore_and_reraise;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, NULL);
    }
}

static inline void cn_remove_restoring_handlers(void) {
    const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
}

#endif
