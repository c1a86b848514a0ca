"""Corpus of calculate results from CPython, for the tests of package pycalc.

Each line of the corpus is "<expression>\t<result>", where the result is what
the τ-bench-style calculate tool returns (the character check, then
str(round(float(eval(e, {"__builtins__": None}, {})), 2)), or "Error: " and
the exception's text). In an expression, "{N*text}" stands for text repeated
N times (the alphabet has no braces), which keeps the deeply nested cases
short.

    python3.11 corpus.py gen > cpython311.txt
        draws the expressions (hand-picked ones, random ones, and nesting
        near CPython's limits) and evaluates them, skipping those CPython
        takes too long on (huge powers);
    corpus.py eval cpython311.txt > cpython312.txt
        evaluates the same expressions again under another interpreter.

cpython312.txt was made by the second command under Pyodide 0.27.7 (CPython
3.12.7 compiled to WebAssembly), run by Node with a large stack
(ulimit -s unlimited; node --stack-size=200000), which loads this script
with the corpus file as its input. Pyodide's C library is musl, whose text
for ERANGE differs from glibc's; "eval" prints glibc's, as a Linux CPython
would. Pyodide's WebAssembly stack is smaller than a native thread's: it
crashed on 49 of the deepest expressions (nested about 6000 levels), which
cpython312.txt leaves out.
"""
import random
import sys
import warnings

warnings.simplefilter("ignore")  # SyntaxWarning: 'int' object is not callable


def calculate(expression):
    if not all(char in "0123456789+-*/(). " for char in expression):
        return "Error: invalid characters in expression"
    try:
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
    except Exception as e:
        return f"Error: {e}".replace("(68, 'Result not representable')", "(34, 'Numerical result out of range')")


def compress(e):
    """Writes runs of 8 or more repetitions of a unit of 1-4 characters as {N*unit}."""
    out, i = [], 0
    while i < len(e):
        best = (1, 1)  # (characters covered, unit length)
        for n in range(1, 5):
            u = e[i:i + n]
            if len(u) < n:
                break
            k = 1
            while e.startswith(u, i + k * n):
                k += 1
            if k >= 8 and k * n > best[0]:
                best = (k * n, n)
        if best[0] > 1:
            n = best[1]
            out.append("{%d*%s}" % (best[0] // n, e[i:i + n]))
            i += best[0]
        else:
            out.append(e[i])
            i += 1
    return "".join(out)


def expand(e):
    out, i = [], 0
    while i < len(e):
        if e[i] == "{":
            j = e.index("}", i)
            n, u = e[i + 1:j].split("*", 1)
            out.append(u * int(n))
            i = j + 1
        else:
            out.append(e[i])
            i += 1
    return "".join(out)


HAND = [
    "", " ", "1 2", "(1 2)", "1+", "+", "(", ")", "(()", "())", "1..2", "1.2.3", ".", "..", "...",
    "1(2)", "1 (2)", "()", "()()", "(1)(2)", "01", "00", "09.5", "1 .5", "1. 5", "*1", "1**", "1//",
    "/1", "2**-1", "-2**2", "(-8)**(1/3)", "(-8)**0.5*0", "1/0", "1.0/0", "1//0", "1.0//0", "0**-1",
    "0.0**-1", "2.0**10000", "10**400", "10**400/10**399", "1//0.1", "-7//2", "-7.5//2", "7//-2.0",
    "()*2", "()*2.0", "()+()", "1+()", "...+1", "((", "(1))", "1 2 3", "(1 2 3)", "((1) 2)", "1()",
    "2(3)(4)", "0.1+0.2", "3*(2", "3 * ) 2", "   7  ", "0.125", "2.675", "1/3", "123456789*987654321",
    "2**0.5", "(1/3)**-2", "1.5**1000", "-1.5**1001.5", "(-2)**0.5", "0**0", "0.0**0", "(0)**-1.5",
    "1-", "--1", "- - 1", "5 //2", "5/ /2", "5**-", "(1)(2)(3)", "1.(2)", "1.5(2)", "()(1)", "...(1)",
    "(...)()", "(-1)**-1", "(-1)**(-1.0)", "(-0.0)**-1", "4**.5", "4//0.0", "2**(-1074)*0.5",
    "10**308*10.0", "(10**308*10.0)-(10**308*10.0)", "9" * 30, "9" * 400 + ".0", "(2**1024)/1",
    "2**1024/2**1023", "2**2000/3", "1/2**2000", "(1 2", "1 2 (", "1 2 (3 4)", "(1) 2", "(1 2) 3",
    "1 (2 3)", "1+(2 3", "((1 2)", "(1+2 3)", "1 2 )", "1 2 01", "(1 .5)", "()+1", "()*()", "()**2",
    "(...)*()", "-()", "-...", "+()", "(-1)**0.5+()", "((-1)**0.5)//2", "((-1)**0.5)/0",
    "((-1)**0.5)/0.0", "(-1)**0.5*()", "()*10**100", "1()()", "(1)(1/0)", "(1/0)(1)", "2**-1074",
    "(-8.0)**3", "(-0.0)**3", "0.0**3", "10**309/10**308*10.0", "2**10000000", "1" * 4301,
    "0" * 5000, "1 2 " + "1" * 4301, "1" * 4301 + " 2", "(" + "1" * 4301, "1" * 4301 + ".",
    "-" * 5975 + "1", "-" * 5976 + "1", "1**" * 2987 + "1", "1**" * 2988 + "1",
    "(" * 10 + "-" * 5695 + "1" + ")" * 10, "(" * 10 + "-" * 5696 + "1" + ")" * 10,
    "(" * 200 + "1" + ")" * 200, "(" * 201 + "1" + ")" * 201, "0+" * 2000 + "1", "0+" * 4000 + "1",
    "(60 * 0.45) + (30 * 0.30)", "(60 * 0.18) + (30 * 0.12)", "36.0 - 14.4", "14.70 - 8.75",
    "-0.001", "0.005", "1.005", "2.5", "-2.5", "0.0", "-0.0", "1e5", "2^3", "3 % 2", "abc",
    "1 / 3 * 3", "100 - 99.99", "(((1)))", "-(-(1))", "2 ** 3 ** 2", "(2 ** 3) ** 2", "8 // 3 * 3",
    "7 / 2 // 1", "1.0 // 3", "-1 // 3", "-1.0 // 3", "5 // -0.5", "1e308", "((-1)**0.5)**2",
    "(*1)", "(**1)", "(*())", "1(*2)", "1(*())", "1(**2)", "1(**())", "1(*...)", "(*((279))",
    "((*(((18.00)))))", "*1", "**1", "1(*)", "1(**)", "1(* 2 3)", "(*1 2)", "(* 1", "1(*2",
    "1(*1/0)", "(1/0)(*2)", "-(*1)", "1+(*1)", "1(*2)(3)", "1(**2 3)", "(*1)(2)", "1 (*2) 3",
    "2*(*3)", "(1 2)(*3)", "1(*(2 3))", "(**1 2)", "(1)*(*2)", "1(*2 3", "((*1)", "(*1))",
    "2.5(*())", "()(**2)", "...(*1.5)", "1.05**12", "1.1**0.5", "3**0.5", "100*1.07**10",
]

# More by hand: complex results, the star forms, % and other characters.
HAND += [
    "(-8)**0.5", "((-8)**0.5)(*1)", "((-1)**0.5)(**2)", "(-10)**400.5", "((-8)**0.5)**1000",
    "((-8)**0.5)**-1000", "(0*(-1)**0.5)**-1", "(0*(-1)**0.5)**0.5", "1/(0*(-1)**0.5)",
    "((-1)**0.5)**(10.0**308*10)", "((-1)**0.5)**((-1)**0.5)", "((-0.5)**-0.5)(*4)",
    "((-1)**0.5)//2", "2//(-1)**0.5", "(-1)**0.5//10**400", "10**400*(-1)**0.5",
    "(10**5000)(*3)", "(10**5000)(**3)", "()*10**100", "()*-10**100", "()*2**62", "(...)*()",
    "()*()", "()*(-1)**0.5", "(-1)**0.5*()", "-(-1)**0.5", "+(-1)**0.5", "(-1)**0.5(*())",
    "1(*)", "1(**)", "1 2(*)", "1(*) 2", "(1 2)(*)", "(1(*))", "((*))", "(*)(1 2)", "1 (*)",
    "1(*)(", "1(*(2 3))", "1+(*)", "-(*)", "(*)+1", "1(*.)", "1(*)1", "1((*))", "1(*(*))",
    "1(**(*))", "(1 2 (*))", "((1 2) (*))", "1 2 3(*)", "(1) 2 (*)", "(1 .", "1 .", "(1).",
    "0/-5", "-1/10**400", "1/-10**400", "-1/-10**400", "0/5", "2**-1075", "0.5**1074.5",
    "5 % 3", "2^3", "1e5", "1_000", "abc", "1;2",
]


def gen(rng, depth=0):
    r = rng.random()
    if depth > 4 or r < 0.3:
        k = rng.random()
        if k < 0.5:
            return str(rng.randint(0, 300))
        if k < 0.8:
            return f"{rng.randint(0, 99)}.{rng.randint(0, 99):02d}"
        if k < 0.85:
            return "..." if rng.random() < 0.5 else "()"
        return rng.choice(["0", ".5", "5.", "0.0", "00", "007", "1.", "2"])
    if r < 0.45:
        return rng.choice(["-", "+", "- "]) + gen(rng, depth + 1)
    if r < 0.6:
        return "(" + gen(rng, depth + 1) + ")"
    if r < 0.65:
        return gen(rng, depth + 1) + "(" + (gen(rng, depth + 1) if rng.random() < 0.5 else "") + ")"
    op = rng.choice(["+", "-", "*", "/", "//", "**", "*", "/"])
    sp = " " if rng.random() < 0.5 else ""
    return gen(rng, depth + 1) + sp + op + sp + gen(rng, depth + 1)

def mutate(rng, s):
    s = list(s)
    for _ in range(rng.randint(1, 2)):
        k = rng.random()
        pos = rng.randint(0, len(s))
        if k < 0.4 and s:
            del s[min(pos, len(s) - 1)]
        else:
            s.insert(pos, rng.choice("0123456789+-*/(). "))
    return "".join(s)



def gen_complex(rng, depth=0):
    """Mixes in complex powers, calls, huge ints and odd atoms."""
    r = rng.random()
    if depth > 4 or r < 0.28:
        k = rng.random()
        if k < 0.4:
            return str(rng.randint(0, 300))
        if k < 0.6:
            return f"{rng.randint(0, 99)}.{rng.randint(0, 99):02d}"
        if k < 0.67:
            return rng.choice(["...", "()"])
        if k < 0.72:
            return rng.choice(["10**400", "2**1100", "(10**20)", "9" * 25, "0.1"])
        return rng.choice(["0", ".5", "5.", "0.0", "00", "007", "1.", "2", "3", "10", "-0.0", "1.5"])
    if r < 0.4:
        return rng.choice(["-", "+", "- ", "--"]) + gen_complex(rng, depth + 1)
    if r < 0.52:
        return "(" + gen_complex(rng, depth + 1) + ")"
    if r < 0.56:
        arg = gen_complex(rng, depth + 1) if rng.random() < 0.6 else ""
        return gen_complex(rng, depth + 1) + "(" + rng.choice(["", "*", "**"]) + arg + ")"
    if r < 0.62:
        return "(" + rng.choice(["-8", "-2", "-0.5", "-1", "-(2**0.5)", "(-1)**0.5", "-10"]) + ")**" + rng.choice(
            ["0.5", "(1/3)", "1.5", "400.5", "-0.5", "2", "-1", "(-1)**0.5", "0"])
    op = rng.choice(["+", "-", "*", "/", "//", "**", "*", "/", "+", "-"])
    sp = " " if rng.random() < 0.4 else ""
    return gen_complex(rng, depth + 1) + sp + op + sp + gen_complex(rng, depth + 1)


def deep_cases(rng):
    """Nesting around CPython's limits: its parser's stack (MAXSTACK) and
    its compiler's recursion limit."""
    fams = [
        lambda n: "-" * n + "1", lambda n: "-" * n + "1 2", lambda n: "-" * n + "1 +",
        lambda n: "(" + "-" * n + "1 2)", lambda n: "(" + "-" * n + "1) 2", lambda n: "((" + "-" * n + "1 2))",
        lambda n: "(" * 10 + "-" * n + "1 2" + ")" * 10, lambda n: "1(" + "-" * n + "1 2)",
        lambda n: "1(*" + "-" * n + "1 2)", lambda n: "1(**" + "-" * n + "1 2)", lambda n: "-" * n + "(1 2)",
        lambda n: "-" * n + "(*1)", lambda n: "-" * n + "(**1)", lambda n: "(*" + "-" * n + "1)",
        lambda n: "(**" + "-" * n + "1)", lambda n: "-" * n + "1(*)", lambda n: "-" * n + "(*)",
        lambda n: "1(*" + "-" * n + "1)", lambda n: "1(" + "-" * n + "1)", lambda n: "1(**" + "-" * n + "1)",
        lambda n: "-(" + "-" * n + "1)", lambda n: "1**(" + "-" * n + "1)", lambda n: "1**" + "-" * n + "1 2",
        lambda n: "1(" * 10 + "-" * n + "1" + ")" * 10, lambda n: "1(*" * 10 + "-" * n + "1" + ")" * 10,
        lambda n: "(1 2 " + "-" * n + "1)", lambda n: "-" * n + "01", lambda n: "-" * n + "(",
        lambda n: "-" * n + "()", lambda n: "-" * n + "1()", lambda n: "-" * n + "(())", lambda n: "-" * n + ". 1",
        lambda n: "-" * n + "1(**)", lambda n: "-" * n + "() 2", lambda n: "-" * n + "1(",
        lambda n: "-" * n + "1)", lambda n: "-" * n + "(*())", lambda n: "-" * n + "1**()",
    ]
    out = []
    for f in fams:
        for n in (5900, 5940, 5941, 5942, 5943, 5944, 5945, 5946, 5947, 5948, 5949, 5950, 5951, 5952,
                  5970, 5971, 5972, 5973, 5974, 5975, 5976, 5977, 5980, 5981, 6100):
            out.append(f(n))
    for n in (1, 2, 20):
        out.append("1**" * (2988 - n) + "1")
        out.append("1**" * (2988 - n) + "1 2")
    for n in (2985, 2988, 2989, 2990, 2991, 2992, 9994, 9995, 9996, 9997):
        out += ["0+" * n + "1", "1-" * n + "(-1)", "1(*" + "0+" * n + "1)", "0+" * n + "-" * 100 + "1"]
    for k in (1, 10, 100, 199, 200, 201):
        out.append("(" * k + "1" + ")" * k)
        out.append("(" * k + "-" * (5976 - 28 * k) + "1" + ")" * k)
        out.append("(" * k + "-" * (5975 - 28 * k) + "1" + ")" * k)
    # Random mixes of nesting constructs whose depth ends near the limit.
    wraps = [("(", ")", 28), ("1(", ")", 24), ("1(*", ")", 27), ("1(**", ")", 27), ("-(", ")", 29),
             ("2**(", ")", 30), ("(0+", ")", 28), ("1+(", ")", 28), ("((1)", ")", 28)]
    cores = ["1", "1 2", "(1 2)", "1(*)", "(*)", "(*1)", "(**1)", "1(**)", "1 +", "(", "01", "1)", "...", "()",
             "1(*2)", "2 3 4", "(1)(2 3)", "1.", ". 1", "1(2 3)", "(1 2 3)", "-()", "1(*(2 3))"]
    for _ in range(1000):
        ws = [rng.choice(wraps) for _ in range(rng.randint(0, 6))]
        total = max(0, 5976 - sum(w[2] for w in ws) + rng.randint(-40, 6))
        cuts = sorted(rng.randint(0, total) for _ in ws)
        parts = [b - a for a, b in zip([0] + cuts, cuts + [total])]
        s = "".join("-" * n + w[0] for w, n in zip(ws, parts))
        core = rng.choice(cores)
        if rng.random() < 0.3:
            core = rng.choice(["1**", "2**-"]) * rng.randint(1, 5) + core
        s += "-" * parts[-1] + core + "".join(w[1] for w in reversed(ws))
        if rng.random() < 0.2:
            s += rng.choice([" 2", ")", "(", " +", "(*)", "(1 2)"])
        out.append(s)
    return out


def draw():
    cases = list(HAND)
    rng = random.Random(20251028)  # the telehealth port's original corpus
    for _ in range(3000):
        e = gen(rng)
        if rng.random() < 0.4:
            e = mutate(rng, e)
        cases.append(e)
    rng = random.Random(1)
    for _ in range(2000):
        e = gen_complex(rng)
        if rng.random() < 0.3:
            e = mutate(rng, e)
        cases.append(e)
    return cases + deep_cases(random.Random(7))


def main():
    if sys.argv[1:2] == ["eval"]:
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                e = line.rstrip("\n").split("\t", 1)[0]
                print(e + "\t" + calculate(expand(e)))
        return
    import signal

    class Slow(Exception):
        pass

    def alarm(signum, frame):
        raise Slow()

    signal.signal(signal.SIGALRM, alarm)
    seen = set()
    for c in draw():
        if c in seen:
            continue
        seen.add(c)
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        try:
            r = calculate(c)
        except Slow:
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        # A power too big to compute ends in CPython's MemoryError (empty
        # text) only after exhausting memory.
        if r != "Error: " or c in HAND or len(c) > 300:
            print(compress(c) + "\t" + r)


if __name__ == "__main__":
    main()
