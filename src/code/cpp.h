/*
 * code/cpp: tell C++ text from C, for ".h" headers, which both languages
 * use.  A marker only C++ has — "namespace x", "template <", "std::", an
 * access label (public: private: protected:), constexpr, nullptr —
 * outside comments and literals makes the text C++.  C parsed with the C++
 * grammar mostly parses; C++ parsed with the C grammar is mostly errors.
 */
#ifndef HEARTH_CODE_CPP_H
#define HEARTH_CODE_CPP_H

#include <stddef.h>

/* Whether the n bytes of text (C or C++) use a C++-only construct. */
int code_cpp_is_cpp(const char *text, size_t n);

#endif
