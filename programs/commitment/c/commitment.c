/*
 * Commitment program: one account per owner holding the latest Merkle root of that owner's
 * memory log, its memory count and a nonce that advances by one on every commit.
 *
 * Spec: CONTRACT.md §6 (commitment PDA, commit rules) and §11 (account data layout).
 * Wire format: Anchor 0.30+ (instruction discriminator sha256("global:<name>")[..8], Borsh
 * arguments, account discriminator sha256("account:Commitment")[..8]); the hand-written IDL in
 * ../idl/commitment.json describes exactly this file.
 * ABI: Solana SBPF v0 with the aligned input serialization of the BPF Upgradeable Loader and
 * the C syscall interface (sol_invoke_signed_c & co.), as in the Solana C SDK (sdk/bpf/c).
 *
 * Build constraints (see ../README.md): clang -target bpf -mcpu=v1, no libc, no writable
 * globals, at most 5 arguments per call and 512 bytes of stack per function, hence the
 * noinline instruction handlers.
 */

typedef unsigned char u8;
typedef unsigned long long u64;
typedef long long i64;

#define U64_MAX 0xffffffffffffffffULL

/* Custom error codes, returned as the instruction's Custom(n) error. Keep in sync with the IDL. */
#define ERR_UNAUTHORIZED 6000
#define ERR_COUNT_DECREASED 6001
#define ERR_NONCE_MISMATCH 6002
#define ERR_INVALID_ACCOUNT 6003
#define ERR_INVALID_INSTRUCTION 6004
#define ERR_ALREADY_INITIALIZED 6005
#define ERR_NOT_ENOUGH_ACCOUNTS 6006
#define ERR_NONCE_OVERFLOW 6007
#define ERR_RENT_UNAVAILABLE 6008

/* Commitment account layout (121 bytes). */
#define OFF_DISCRIMINATOR 0
#define OFF_AUTHORITY 8
#define OFF_OWNER 40
#define OFF_ROOT 72
#define OFF_MEMORY_COUNT 104
#define OFF_NONCE 112
#define OFF_BUMP 120
#define COMMITMENT_SIZE 121

/* Instruction data sizes: discriminator plus Borsh arguments. */
#define INITIALIZE_DATA_LEN (8 + 32)
#define COMMIT_DATA_LEN (8 + 32 + 8 + 8)

/* Input serialization constants (BPF Upgradeable Loader, aligned ABI). */
#define MAX_PARSED_ACCOUNTS 4
#define NON_DUP_MARKER 0xff
#define MAX_PERMITTED_DATA_INCREASE 10240

/* solana_rent::ACCOUNT_STORAGE_OVERHEAD */
#define ACCOUNT_STORAGE_OVERHEAD 128

typedef struct {
  u8 x[32];
} SolPubkey;

/* Layouts below are the C SDK's (sdk/bpf/c/inc/sol/pubkey.h, cpi.h); the runtime reads them. */
typedef struct {
  SolPubkey *key;
  u64 *lamports;
  u64 data_len;
  u8 *data;
  SolPubkey *owner;
  u64 rent_epoch;
  u8 is_signer;
  u8 is_writable;
  u8 executable;
} SolAccountInfo;

typedef struct {
  SolPubkey *pubkey;
  u8 is_writable;
  u8 is_signer;
} SolAccountMeta;

typedef struct {
  const SolPubkey *program_id;
  SolAccountMeta *accounts;
  u64 account_len;
  const u8 *data;
  u64 data_len;
} SolInstruction;

typedef struct {
  const u8 *addr;
  u64 len;
} SolSignerSeed;

typedef struct {
  const SolSignerSeed *addr;
  u64 len;
} SolSignerSeeds;

extern void sol_log_(const char *message, u64 len);
extern u64 sol_try_find_program_address(const SolSignerSeed *seeds, u64 seeds_len,
                                        const SolPubkey *program_id, SolPubkey *address,
                                        u8 *bump_seed);
extern u64 sol_create_program_address(const SolSignerSeed *seeds, u64 seeds_len,
                                      const SolPubkey *program_id, SolPubkey *address);
extern u64 sol_invoke_signed_c(const SolInstruction *instruction,
                               const SolAccountInfo *account_infos, u64 account_infos_len,
                               const SolSignerSeeds *signers_seeds, u64 signers_seeds_len);
extern u64 sol_get_rent_sysvar(u8 *rent);

#define LOG(literal) sol_log_((literal), sizeof(literal) - 1)

static const u8 INITIALIZE_DISCRIMINATOR[8] = {0xaf, 0xaf, 0x6d, 0x1f, 0x0d, 0x98, 0x9b, 0xed};
static const u8 COMMIT_DISCRIMINATOR[8] = {0xdf, 0x8c, 0x8e, 0xa5, 0xe5, 0xd0, 0x9c, 0x4a};
static const u8 ACCOUNT_DISCRIMINATOR[8] = {0x3d, 0x70, 0x81, 0x80, 0x18, 0x93, 0x4d, 0x57};
static const u8 SEED_PREFIX[10] = {'c', 'o', 'm', 'm', 'i', 't', 'm', 'e', 'n', 't'};

/* System program instruction tags (bincode u32 LE). */
#define SYSTEM_CREATE_ACCOUNT 0
#define SYSTEM_ASSIGN 1
#define SYSTEM_TRANSFER 2
#define SYSTEM_ALLOCATE 8

/* The parsed program input. Only the first MAX_PARSED_ACCOUNTS accounts are kept. */
typedef struct {
  SolAccountInfo accounts[MAX_PARSED_ACCOUNTS];
  u64 account_count;
  const u8 *data;
  u64 data_len;
  const SolPubkey *program_id;
} Context;

static int bytes_equal(const u8 *a, const u8 *b, u64 len) {
  for (u64 i = 0; i < len; i++) {
    if (a[i] != b[i]) {
      return 0;
    }
  }
  return 1;
}

static int bytes_zero(const u8 *a, u64 len) {
  for (u64 i = 0; i < len; i++) {
    if (a[i] != 0) {
      return 0;
    }
  }
  return 1;
}

static void bytes_copy(u8 *dst, const u8 *src, u64 len) {
  for (u64 i = 0; i < len; i++) {
    dst[i] = src[i];
  }
}

static u64 read_u64_le(const u8 *p) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) {
    v = (v << 8) | p[i];
  }
  return v;
}

static void write_u32_le(u8 *p, u64 v) {
  for (int i = 0; i < 4; i++) {
    p[i] = (u8)(v >> (8 * i));
  }
}

static void write_u64_le(u8 *p, u64 v) {
  for (int i = 0; i < 8; i++) {
    p[i] = (u8)(v >> (8 * i));
  }
}

static int key_equal(const SolPubkey *a, const SolPubkey *b) {
  return bytes_equal(a->x, b->x, 32);
}

/*
 * Parses the aligned input serialization: u64 account count, then per account either
 * [dup_index, 7 padding] or [0xff, is_signer, is_writable, executable, 4 padding, key(32),
 * owner(32), lamports u64, data_len u64, data, 10240 bytes of growth room, padding to 8,
 * rent_epoch u64], then u64 instruction data length, the data and the program id.
 */
static void deserialize(u8 *input, Context *ctx) {
  u8 *p = input;
  u64 count = *(u64 *)p;
  p += sizeof(u64);
  ctx->account_count = count;
  for (u64 i = 0; i < count; i++) {
    u8 dup = *p;
    if (dup != NON_DUP_MARKER) {
      if (i < MAX_PARSED_ACCOUNTS) {
        SolAccountInfo *src = &ctx->accounts[dup];
        SolAccountInfo *dst = &ctx->accounts[i];
        dst->key = src->key;
        dst->lamports = src->lamports;
        dst->data_len = src->data_len;
        dst->data = src->data;
        dst->owner = src->owner;
        dst->rent_epoch = src->rent_epoch;
        dst->is_signer = src->is_signer;
        dst->is_writable = src->is_writable;
        dst->executable = src->executable;
      }
      p += 8;
      continue;
    }
    u8 is_signer = p[1];
    u8 is_writable = p[2];
    u8 executable = p[3];
    p += 8;
    SolPubkey *key = (SolPubkey *)p;
    p += 32;
    SolPubkey *owner = (SolPubkey *)p;
    p += 32;
    u64 *lamports = (u64 *)p;
    p += sizeof(u64);
    u64 data_len = *(u64 *)p;
    p += sizeof(u64);
    u8 *data = p;
    p += data_len + MAX_PERMITTED_DATA_INCREASE;
    p = (u8 *)(((u64)p + 7) & ~(u64)7);
    u64 rent_epoch = *(u64 *)p;
    p += sizeof(u64);
    if (i < MAX_PARSED_ACCOUNTS) {
      SolAccountInfo *info = &ctx->accounts[i];
      info->key = key;
      info->lamports = lamports;
      info->data_len = data_len;
      info->data = data;
      info->owner = owner;
      info->rent_epoch = rent_epoch;
      info->is_signer = is_signer;
      info->is_writable = is_writable;
      info->executable = executable;
    }
  }
  ctx->data_len = *(u64 *)p;
  p += sizeof(u64);
  ctx->data = p;
  p += ctx->data_len;
  ctx->program_id = (const SolPubkey *)p;
}

/* Number of significant bits of v (0 for v == 0). */
static u64 bit_length(u64 v) {
  u64 n = 0;
  while (v != 0) {
    n++;
    v >>= 1;
  }
  return n;
}

/*
 * solana_rent::Rent::minimum_balance(data_len) =
 *   (((ACCOUNT_STORAGE_OVERHEAD + data_len) * lamports_per_byte_year) as f64
 *      * exemption_threshold) as u64
 * computed without floating point: the f64 threshold is decoded from its IEEE 754 bits, the
 * exact product is rounded to 53 significant bits (round half to even, as the f64 multiply
 * does), then truncated (Rust `as u64`, saturating). Returns 0 and writes *out, or an error code.
 */
static __attribute__((noinline)) u64 rent_minimum_balance(u64 data_len, u64 *out) {
  u8 rent[24]; /* lamports_per_byte_year u64, exemption_threshold f64, burn_percent u8, pad */
  if (sol_get_rent_sysvar(rent) != 0) {
    return ERR_RENT_UNAVAILABLE;
  }
  u64 per_byte_year = read_u64_le(rent);
  u64 bits = read_u64_le(rent + 8);
  u64 bytes = ACCOUNT_STORAGE_OVERHEAD + data_len;
  if (per_byte_year != 0 && bytes > U64_MAX / per_byte_year) {
    return ERR_RENT_UNAVAILABLE;
  }
  u64 x = bytes * per_byte_year;
  if (x >= (1ULL << 53)) {
    return ERR_RENT_UNAVAILABLE; /* x as f64 would round; no real cluster comes near this */
  }
  u64 biased_exponent = (bits >> 52) & 0x7ff;
  u64 fraction = bits & ((1ULL << 52) - 1);
  if (biased_exponent == 0x7ff) {
    return ERR_RENT_UNAVAILABLE; /* infinity or NaN */
  }
  if ((bits >> 63) != 0 || x == 0 || (biased_exponent == 0 && fraction == 0)) {
    *out = 0;
    return 0;
  }
  u64 mantissa = biased_exponent == 0 ? fraction : (fraction | (1ULL << 52));
  i64 exponent = biased_exponent == 0 ? -1074 : (i64)biased_exponent - 1075;

  /* 128-bit product x * mantissa from 32-bit limbs (both factors are below 2^53). */
  u64 mask = 0xffffffffULL;
  u64 p0 = (x & mask) * (mantissa & mask);
  u64 p1 = (x & mask) * (mantissa >> 32);
  u64 p2 = (x >> 32) * (mantissa & mask);
  u64 p3 = (x >> 32) * (mantissa >> 32);
  u64 mid = (p0 >> 32) + (p1 & mask) + (p2 & mask);
  u64 lo = (p0 & mask) | (mid << 32);
  u64 hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);

  u64 length = hi != 0 ? 64 + bit_length(hi) : bit_length(lo);
  u64 q = lo;
  if (length > 53) {
    u64 k = length - 53; /* 1..53 because the product is below 2^106 */
    u64 rem = lo & ((1ULL << k) - 1);
    u64 half = 1ULL << (k - 1);
    q = (lo >> k) | (hi << (64 - k));
    if (rem > half || (rem == half && (q & 1) != 0)) {
      q++;
    }
    exponent += (i64)k;
  }
  if (exponent >= 0) {
    if (exponent >= 64 || q > (U64_MAX >> exponent)) {
      *out = U64_MAX;
    } else {
      *out = q << exponent;
    }
  } else {
    i64 shift = -exponent;
    *out = shift >= 64 ? 0 : q >> shift;
  }
  return 0;
}

/*
 * Invokes the system program with `data`. The account metas are [authority, commitment]
 * (both writable signers; the commitment signs through the PDA seeds) or, when
 * `commitment_only` is set, [commitment].
 */
static __attribute__((noinline)) u64 invoke_system(Context *ctx, const SolSignerSeeds *signer,
                                                   const u8 *data, u64 data_len,
                                                   int commitment_only) {
  SolAccountMeta metas[2];
  metas[0].pubkey = ctx->accounts[0].key;
  metas[0].is_writable = 1;
  metas[0].is_signer = 1;
  metas[1].pubkey = ctx->accounts[1].key;
  metas[1].is_writable = 1;
  metas[1].is_signer = 1;
  SolInstruction instruction;
  instruction.program_id = ctx->accounts[2].key;
  instruction.accounts = commitment_only ? &metas[1] : metas;
  instruction.account_len = commitment_only ? 1 : 2;
  instruction.data = data;
  instruction.data_len = data_len;
  return sol_invoke_signed_c(&instruction, ctx->accounts, 3, signer, 1);
}

/*
 * initialize(owner: Pubkey)
 * Accounts: [authority (signer, writable, payer), commitment PDA (writable), system_program].
 */
static __attribute__((noinline)) u64 process_initialize(Context *ctx) {
  if (ctx->data_len != INITIALIZE_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 3) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *commitment = &ctx->accounts[1];
  SolAccountInfo *system_program = &ctx->accounts[2];
  const u8 *owner = ctx->data + 8;

  if (!authority->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!authority->is_writable || !bytes_zero(system_program->key->x, 32)) {
    return ERR_INVALID_ACCOUNT;
  }

  SolPubkey expected;
  u8 bump = 0;
  SolSignerSeed seeds[3];
  seeds[0].addr = SEED_PREFIX;
  seeds[0].len = sizeof(SEED_PREFIX);
  seeds[1].addr = owner;
  seeds[1].len = 32;
  seeds[2].addr = &bump;
  seeds[2].len = 1;
  if (sol_try_find_program_address(seeds, 2, ctx->program_id, &expected, &bump) != 0) {
    return ERR_INVALID_ACCOUNT;
  }
  if (!key_equal(&expected, commitment->key) || !commitment->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  if (key_equal(commitment->owner, ctx->program_id)) {
    return ERR_ALREADY_INITIALIZED;
  }
  if (!bytes_zero(commitment->owner->x, 32) || commitment->data_len != 0) {
    return ERR_INVALID_ACCOUNT;
  }

  u64 required = 0;
  u64 rc = rent_minimum_balance(COMMITMENT_SIZE, &required);
  if (rc != 0) {
    return rc;
  }
  if (required == 0) {
    required = 1; /* as Bank::get_minimum_balance_for_rent_exemption: an account needs lamports */
  }

  SolSignerSeeds signer;
  signer.addr = seeds;
  signer.len = 3;
  u8 data[52];
  u64 current = *commitment->lamports;
  if (current == 0) {
    /* CreateAccount { lamports, space, owner } */
    write_u32_le(data, SYSTEM_CREATE_ACCOUNT);
    write_u64_le(data + 4, required);
    write_u64_le(data + 12, COMMITMENT_SIZE);
    bytes_copy(data + 20, ctx->program_id->x, 32);
    rc = invoke_system(ctx, &signer, data, 52, 0);
    if (rc != 0) {
      return rc;
    }
  } else {
    /* Pre-funded address: top up, then Allocate and Assign (what create_account would do). */
    if (current < required) {
      write_u32_le(data, SYSTEM_TRANSFER);
      write_u64_le(data + 4, required - current);
      rc = invoke_system(ctx, &signer, data, 12, 0);
      if (rc != 0) {
        return rc;
      }
    }
    write_u32_le(data, SYSTEM_ALLOCATE);
    write_u64_le(data + 4, COMMITMENT_SIZE);
    rc = invoke_system(ctx, &signer, data, 12, 1);
    if (rc != 0) {
      return rc;
    }
    write_u32_le(data, SYSTEM_ASSIGN);
    bytes_copy(data + 4, ctx->program_id->x, 32);
    rc = invoke_system(ctx, &signer, data, 36, 1);
    if (rc != 0) {
      return rc;
    }
  }

  u8 *account = commitment->data;
  bytes_copy(account + OFF_DISCRIMINATOR, ACCOUNT_DISCRIMINATOR, 8);
  bytes_copy(account + OFF_AUTHORITY, authority->key->x, 32);
  bytes_copy(account + OFF_OWNER, owner, 32);
  for (u64 i = 0; i < 32; i++) {
    account[OFF_ROOT + i] = 0;
  }
  write_u64_le(account + OFF_MEMORY_COUNT, 0);
  write_u64_le(account + OFF_NONCE, 0);
  account[OFF_BUMP] = bump;
  return 0;
}

/*
 * commit(root: [u8; 32], memory_count: u64, expected_nonce: u64)
 * Accounts: [authority (signer), commitment PDA (writable)].
 */
static __attribute__((noinline)) u64 process_commit(Context *ctx) {
  if (ctx->data_len != COMMIT_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 2) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *commitment = &ctx->accounts[1];
  u8 *account = commitment->data;

  if (!key_equal(commitment->owner, ctx->program_id) || commitment->data_len != COMMITMENT_SIZE ||
      !bytes_equal(account + OFF_DISCRIMINATOR, ACCOUNT_DISCRIMINATOR, 8) ||
      !commitment->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }

  SolPubkey expected;
  SolSignerSeed seeds[3];
  seeds[0].addr = SEED_PREFIX;
  seeds[0].len = sizeof(SEED_PREFIX);
  seeds[1].addr = account + OFF_OWNER;
  seeds[1].len = 32;
  seeds[2].addr = account + OFF_BUMP;
  seeds[2].len = 1;
  if (sol_create_program_address(seeds, 3, ctx->program_id, &expected) != 0 ||
      !key_equal(&expected, commitment->key)) {
    return ERR_INVALID_ACCOUNT;
  }

  if (!authority->is_signer || !bytes_equal(authority->key->x, account + OFF_AUTHORITY, 32)) {
    return ERR_UNAUTHORIZED;
  }

  const u8 *root = ctx->data + 8;
  u64 memory_count = read_u64_le(ctx->data + 40);
  u64 expected_nonce = read_u64_le(ctx->data + 48);
  if (memory_count < read_u64_le(account + OFF_MEMORY_COUNT)) {
    return ERR_COUNT_DECREASED;
  }
  u64 nonce = read_u64_le(account + OFF_NONCE);
  if (expected_nonce != nonce) {
    return ERR_NONCE_MISMATCH;
  }
  if (nonce == U64_MAX) {
    return ERR_NONCE_OVERFLOW;
  }

  bytes_copy(account + OFF_ROOT, root, 32);
  write_u64_le(account + OFF_MEMORY_COUNT, memory_count);
  write_u64_le(account + OFF_NONCE, nonce + 1);
  return 0;
}

u64 entrypoint(u8 *input) {
  Context ctx;
  deserialize(input, &ctx);
  if (ctx.data_len < 8) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (bytes_equal(ctx.data, INITIALIZE_DISCRIMINATOR, 8)) {
    LOG("Instruction: Initialize");
    return process_initialize(&ctx);
  }
  if (bytes_equal(ctx.data, COMMIT_DISCRIMINATOR, 8)) {
    LOG("Instruction: Commit");
    return process_commit(&ctx);
  }
  return ERR_INVALID_INSTRUCTION;
}
