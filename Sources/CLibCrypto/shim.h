#ifndef RECORDERD_CLIBCRYPTO_SHIM_H
#define RECORDERD_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
