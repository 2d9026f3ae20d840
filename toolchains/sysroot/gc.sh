# `root.sh gc`: removes pinned roots nobody needs any more (each is about
# 2.3 GB, and every change of the root's inputs makes a new one). Sourced by
# root.sh, whose roots, key, die and root_key it uses.
#
# Under $roots, it removes
#   - a root (a folder named by a 16-digit key) that is not this checkout's
#     current one, was last used more than ROCKE_ROOTS_KEEP_DAYS days ago
#     (default 7; its stamp .rocke-used, which root.sh touches whenever it
#     hands the root out, else its marker's time), and is not in use;
#   - a root moved aside (.trash-*: corrupted, or left by a gc that died) that
#     is not in use;
#   - an unfinished build (.tmp-KEY-PID) whose build lock nobody holds.
# In use means any of:
#   - a `root.sh exec` of that root runs (it holds KEY.use shared; gc takes it
#     exclusively while it decides and moves the root aside, so no exec can
#     enter a root being removed: it waits, then builds the root anew);
#   - a mount in any mount namespace shows that folder or one inside it: the
#     root of a Bazel server that outlived its client (it closes inherited
#     files, so it holds no lock), a bind mount, an overlay layer (the remote
#     executor's lower folder);
#   - a process has it as its root directory.
# Each decision is printed with its reason, then what was freed.

# What the machine's processes hold: "fs PID PATH" for the folder each mount
# of each mount namespace shows (PATH within its filesystem, as mountinfo says
# it), "path PID DIR" for each overlay layer, "inode PID DEV:INO" for each
# process's root directory.
held_by_processes() {
  local pid ns seen=" "
  for pid in /proc/[0-9]*; do
    ns=$(readlink "$pid/ns/mnt" 2>/dev/null) || continue
    [[ $seen == *" $ns "* ]] && continue
    seen+="$ns "
    awk -v pid="${pid#/proc/}" '{
      print "fs", pid, $4
      for (i = 7; i <= NF; i++) if ($i == "-") break
      n = split($(i + 3), opts, ",")
      for (j = 1; j <= n; j++) if (opts[j] ~ /^(lowerdir|upperdir|workdir)=/) {
        sub(/^[a-z]+=/, "", opts[j])
        m = split(opts[j], dirs, ":")
        for (k = 1; k <= m; k++) print "path", pid, dirs[k]
      }
    }' "$pid/mountinfo" 2>/dev/null
  done
  for pid in /proc/[0-9]*; do
    printf 'inode %s %s\n' "${pid#/proc/}" "$(stat -Lc %d:%i "$pid/root/" 2>/dev/null)"
  done
}

# Why DIR is in use (nothing if it is not), from HELD (held_by_processes).
in_use() {
  local dir=$1 held=$2 rel inode line pid
  # DIR as mountinfo names it: within its filesystem.
  rel=$(findmnt -n -o FSROOT -T "$dir")/${dir#"$(findmnt -n -o TARGET -T "$dir")"}
  rel=$(sed 's#//*#/#g' <<<"$rel")
  inode=$(stat -c %d:%i "$dir")
  line=$(awk -v rel="$rel" -v dir="$dir" -v inode="$inode" '
    ($1 == "fs" && ($3 == rel || index($3, rel "/") == 1)) ||
    ($1 == "path" && ($3 == dir || index($3, dir "/") == 1)) ||
    ($1 == "inode" && $3 == inode) { print; exit }' <<<"$held")
  [[ -n $line ]] || return 0
  read -r _ pid _ <<<"$line"
  case $line in
    inode*) echo "it is the root directory of pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null))" ;;
    *) echo "it is mounted in the mount namespace of pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null))" ;;
  esac
}

# Seconds since the epoch when the root at DIR was last handed out.
last_use() {
  local dir=$1 file
  for file in "$dir/.rocke-used" "$dir/.rocke-root" "$dir"; do
    [[ -e $file ]] && { stat -c %Y "$file"; return; }
  done
}

gc_roots() {
  local days=${ROCKE_ROOTS_KEEP_DAYS:-7}
  [[ $days =~ ^[0-9]+$ ]] || die "ROCKE_ROOTS_KEEP_DAYS must be a whole number of days, got '$days'." \
    "Unset it for the default (7 days), or set e.g. ROCKE_ROOTS_KEEP_DAYS=30."
  key=$(root_key)
  if [[ ! -d $roots ]]; then echo "rocke gc: no roots under $roots: nothing to remove"; return 0; fi
  mkdir -p "$roots/.locks"
  exec 6>"$roots/.locks/gc.lock"
  flock -n 6 || { echo "rocke gc: another gc is collecting $roots; leaving it to that one"; return 0; }
  echo "rocke gc: roots under $roots; keeping the current one ($key) and those used in the last $days days (ROCKE_ROOTS_KEEP_DAYS)"
  local now dir name why lock last trash size freed=0 removed=0
  now=$(date +%s)
  for dir in "$roots"/*/ "$roots"/.trash-*/ "$roots"/.tmp-*/; do
    dir=${dir%/}
    [[ -d $dir && ! -L $dir ]] || continue
    name=${dir##*/}
    lock=
    case $name in
      "$key") echo "rocke gc: kept $name: the current root"; continue ;;
      .tmp-*)
        # An unfinished build; its builder holds the key's build lock.
        lock=$roots/.locks/$(cut -d- -f2 <<<"$name").lock ;;
      .trash-*) ;;
      *)
        [[ $name =~ ^[0-9a-f]{16}$ ]] || continue
        last=$(last_use "$dir")
        if ((now - last < days * 86400)); then
          echo "rocke gc: kept $name: last used $(((now - last) / 86400)) days ago ($(date -u -d "@$last" '+%F %H:%M') UTC)"
          continue
        fi
        lock=$roots/.locks/$name.use ;;
    esac
    if [[ -n $lock ]]; then
      exec 5>>"$lock"
      if ! flock -n 5; then
        exec 5>&-
        echo "rocke gc: kept $name: in use: $([[ $name == .tmp-* ]] && echo "its build runs" || echo "a root.sh exec of it runs") (it holds $lock)"
        continue
      fi
    fi
    # Looked at under the lock, not before the loop: a Bazel server whose
    # client (an exec) ended meanwhile holds no lock, only its mounts.
    why=$(in_use "$dir" "$(held_by_processes)")
    if [[ -n $why ]]; then
      [[ -z $lock ]] || exec 5>&-
      echo "rocke gc: kept $name: in use: $why"
      continue
    fi
    # Aside first (a rename: no exec finds it half-removed), then removed.
    trash=$dir
    if [[ $name != .trash-* ]]; then
      trash=$roots/.trash-gc-$name-$$
      mv "$dir" "$trash"
    fi
    [[ -z $lock ]] || exec 5>&-
    # (A root build removes every .trash-* too: du may find less, or nothing.)
    size=$(du -sb "$trash" 2>/dev/null | cut -f1)
    rm -rf "$trash"
    freed=$((freed + ${size:-0})) removed=$((removed + 1))
    case $name in
      .tmp-*) why="an unfinished build nobody runs" ;;
      .trash-*) why="moved aside earlier" ;;
      *) why="last used $(((now - last) / 86400)) days ago ($(date -u -d "@$last" '+%F %H:%M') UTC)" ;;
    esac
    echo "rocke gc: removed $name: $why; $(numfmt --to=iec-i --suffix=B "${size:-0}") freed"
  done
  exec 6>&-
  echo "rocke gc: removed $removed folders, freed $(numfmt --to=iec-i --suffix=B "$freed") ($freed bytes)"
}
