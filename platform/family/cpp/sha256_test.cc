// Digests from FIPS 180-4's examples (NIST's "SHA256.pdf" test vectors),
// and boundary lengths checked against Python's hashlib.
#include "platform/family/cpp/sha256.h"

#include <string>

#include "platform/cpp/testing/check.h"

using rocke::family::sha256_hex;

ROCKE_TEST(fips_180_4_examples) {
  CHECK_EQ(sha256_hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  CHECK_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
           std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  CHECK_EQ(sha256_hex(std::string(1000000, 'a')),
           std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  CHECK_EQ(sha256_hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

ROCKE_TEST(padding_boundaries_match_hashlib) {
  // hashlib.sha256(b"a" * n).hexdigest() for n = 55 (one padded block), 56 (two), 64 (a whole block)
  CHECK_EQ(sha256_hex(std::string(55, 'a')),
           std::string("9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"));
  CHECK_EQ(sha256_hex(std::string(56, 'a')),
           std::string("b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"));
  CHECK_EQ(sha256_hex(std::string(64, 'a')),
           std::string("ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"));
}

int main() { return rocke::testing::run_all(); }
