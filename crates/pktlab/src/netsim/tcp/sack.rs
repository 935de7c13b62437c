//! SACK-based loss recovery: the sender's scoreboard (RFC 2018 §5) and the conservative
//! recovery algorithm of RFC 6675 §§4–5 (`IsLost`, `SetPipe`, `NextSeg` rules 1 and 2).
//!
//! The scoreboard is a bitmap ring (one bit per segment, the sender's window size), updated
//! from each ACK's SACK blocks with word operations. During recovery `cwnd` stays at
//! `ssthresh` and segments leave while `cwnd − pipe ≥ 1`: first the lowest segment above
//! `HighRxt` that is not SACKed and `IsLost` (at least `DupThresh` SACKed segments above it),
//! then new data. Recovery ends when the cumulative ACK passes the recovery point.
//!
//! A second bitmap marks segments retransmitted since the last timeout and neither SACKed nor
//! acknowledged since — Linux's `TCPCB_SACKED_RETRANS`, ns-3's `TcpTxItem::m_retrans`. They
//! count in the pipe (they are in flight) and `NextSeg` does not resend them, also in a later
//! recovery episode: RFC 6675 restarts `HighRxt` at each new recovery, and read literally it
//! would resend, at once, holes whose retransmissions from the episode just ended are still
//! in flight (one segment in six under RED's 13 % loss; issue 17, difference 5). As in Linux
//! and ns-3 without RACK, a retransmission lost again is then recovered by the timeout. Rule 3
//! (re-sending a not-yet-lost hole) is not needed: the sender always has new data. A
//! retransmission timeout keeps the scoreboard (RFC 6675 §5.1 with erratum 1610: pktlab's
//! receiver never reneges; Linux and ns-3 keep it too) and starts the same recovery with
//! every un-SACKed segment up to the recovery point lost, cwnd 1 growing as outside recovery;
//! `NextSeg` resends only those below the highest SACKed segment (rule 1.b, as ns-3's
//! `TcpTxBuffer::NextSeg`; every one if no SACK lies above `snd_una`), so the segments of the
//! last round trip, whose SACKs are still on their way, are not duplicated.

use super::{Packet, TcpSender, Time};

/// The sender's record of SACKed segments in `[snd_una, max_sent)`, and of the segments
/// retransmitted since the last timeout that are still outstanding.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    bits: Vec<u64>,
    /// Retransmitted since the last timeout, not SACKed or acknowledged since.
    rtx: Vec<u64>,
    mask: u32,
    /// SACKed segments in `[snd_una, max_sent)`.
    count: u32,
    /// Bits set in `rtx`.
    rtx_count: u32,
    /// Highest SACKed segment, valid while `count > 0` (ns-3's `m_highestSack`; RFC 6675's
    /// "highest octet covered by any received SACK").
    high_sack: u32,
    /// Highest segment retransmitted in the current recovery (RFC 6675 `HighRxt`).
    pub(super) high_rxt: u32,
}

impl Scoreboard {
    /// A scoreboard for a window of `cap` segments (a power of two).
    pub fn new(cap: u32) -> Self {
        let cap = cap.max(64);
        Scoreboard {
            bits: vec![0; (cap / 64) as usize],
            rtx: vec![0; (cap / 64) as usize],
            mask: cap - 1,
            count: 0,
            rtx_count: 0,
            high_sack: 0,
            high_rxt: 0,
        }
    }

    /// SACKed segments currently recorded.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The highest SACKed segment above the cumulative ACK, if any.
    pub fn highest_sacked(&self) -> Option<u32> {
        (self.count > 0).then_some(self.high_sack)
    }

    /// Calls `f(word_index, bit_mask, base_seq)` for the words covering `[s, e)`.
    #[inline]
    fn span(mask: u32, s: u32, e: u32, mut f: impl FnMut(usize, u64, u32)) {
        let mut q = s;
        while q < e {
            let i = q & mask;
            let off = i & 63;
            let n = (64 - off).min(e - q);
            let m = if n == 64 {
                !0
            } else {
                ((1u64 << n) - 1) << off
            };
            f((i >> 6) as usize, m, q - off);
            q += n;
        }
    }

    /// Applies `f(word, bit_mask, base_seq)` to the SACK words covering `[s, e)`.
    #[inline]
    fn words(&mut self, s: u32, e: u32, mut f: impl FnMut(&mut u64, u64, u32)) {
        let bits = &mut self.bits;
        Self::span(self.mask, s, e, |w, m, base| f(&mut bits[w], m, base));
    }

    /// Clears the retransmitted marks in `[s, e)`: segments acknowledged, or, on a timeout
    /// (`[snd_una, max_sent)`), every outstanding segment, which may then be resent again
    /// (ns-3's `SetSentListLost` clears the retransmitted flags; Linux's `tcp_enter_loss`
    /// clears `TCPCB_SACKED_RETRANS`).
    #[inline]
    pub fn clear_rtx(&mut self, s: u32, e: u32) {
        if self.rtx_count == 0 || s >= e {
            return;
        }
        let (rtx, mut gone) = (&mut self.rtx, 0);
        Self::span(self.mask, s, e, |w, m, _| {
            gone += (rtx[w] & m).count_ones();
            rtx[w] &= !m;
        });
        self.rtx_count -= gone;
    }

    /// Segment `s` was retransmitted (and is outstanding).
    #[inline]
    pub fn mark_rtx(&mut self, s: u32) {
        let i = s & self.mask;
        let (w, b) = ((i >> 6) as usize, 1u64 << (i & 63));
        if self.rtx[w] & b == 0 {
            self.rtx[w] |= b;
            self.rtx_count += 1;
        }
    }

    /// True if segment `s` was retransmitted since the last timeout and is neither SACKed
    /// nor acknowledged.
    #[inline]
    pub fn is_rtx(&self, s: u32) -> bool {
        let i = s & self.mask;
        self.rtx[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Retransmitted, outstanding segments in `[s, e)`.
    pub fn rtx_in(&self, s: u32, e: u32) -> u32 {
        if self.rtx_count == 0 || s >= e {
            return 0;
        }
        let mut n = 0;
        Self::span(self.mask, s, e, |w, m, _| {
            n += (self.rtx[w] & m).count_ones()
        });
        n
    }

    /// Records the blocks (clipped to `[una, max_sent)`); returns the number of newly SACKed
    /// segments and the highest of them.
    pub fn update(&mut self, blocks: &[(u32, u32)], una: u32, max_sent: u32) -> (u32, Option<u32>) {
        self.update_each(blocks, una, max_sent, |_| {})
    }

    /// [`Scoreboard::update`], also calling `each(seq)` for every newly SACKed segment.
    pub fn update_each(
        &mut self,
        blocks: &[(u32, u32)],
        una: u32,
        max_sent: u32,
        mut each: impl FnMut(u32),
    ) -> (u32, Option<u32>) {
        let (mut n, mut hi) = (0u32, None::<u32>);
        for &(s, e) in blocks {
            let (s, e) = (s.max(una), e.min(max_sent));
            if s >= e || e - s > self.mask {
                continue;
            }
            let (bits, rtx, mut unmarked) = (&mut self.bits, &mut self.rtx, 0);
            Self::span(self.mask, s, e, |wi, m, base| {
                let w = &mut bits[wi];
                let new = m & !*w;
                if new != 0 {
                    // A SACKed retransmission is no longer outstanding.
                    unmarked += (rtx[wi] & new).count_ones();
                    rtx[wi] &= !new;
                    n += new.count_ones();
                    let mut x = new;
                    while x != 0 {
                        each(base + x.trailing_zeros());
                        x &= x - 1;
                    }
                    let top = base + 63 - new.leading_zeros();
                    hi = Some(hi.map_or(top, |h| h.max(top)));
                    *w |= m;
                }
            });
            self.rtx_count -= unmarked;
        }
        if let Some(h) = hi {
            self.high_sack = if self.count == 0 {
                h
            } else {
                self.high_sack.max(h)
            };
        }
        self.count += n;
        (n, hi)
    }

    /// The cumulative ACK moved from `old` to `new`: forget those segments; returns how many
    /// of them had been SACKed.
    pub fn advance(&mut self, old: u32, new: u32) -> u32 {
        self.clear_rtx(old, new);
        if self.count == 0 {
            return 0;
        }
        let mut gone = 0;
        self.words(old, new, |w, m, _| {
            gone += (*w & m).count_ones();
            *w &= !m;
        });
        self.count -= gone;
        gone
    }

    /// Forgets everything in `[una, max_sent)` (after a timeout).
    pub fn clear(&mut self, una: u32, max_sent: u32) {
        self.advance(una, max_sent);
        self.count = 0;
    }

    /// True if segment `s` is SACKed.
    #[inline]
    pub fn is_sacked(&self, s: u32) -> bool {
        let i = s & self.mask;
        self.bits[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// RFC 6675 `IsLost(snd_una)`: at least `dupthresh` SACKed segments above it.
    pub fn lost_from(&self, una: u32, nxt: u32, dupthresh: u32) -> bool {
        nxt > una && self.count >= dupthresh
    }

    /// The highest segment `L` below `nxt` with at least `dupthresh` SACKed segments above
    /// it: every un-SACKed segment `≤ L` is lost (RFC 6675 `IsLost`).
    pub fn lost_boundary(&self, una: u32, nxt: u32, dupthresh: u32) -> Option<u32> {
        if self.count < dupthresh {
            return None;
        }
        let mut seen = 0;
        let mut s = nxt;
        while s > una {
            s -= 1;
            if self.is_sacked(s) {
                seen += 1;
                if seen >= dupthresh {
                    return s.checked_sub(1).filter(|&l| l >= una);
                }
            }
        }
        None
    }

    /// Un-SACKed segments in `[s, e)`.
    pub fn unsacked(&mut self, s: u32, e: u32) -> u32 {
        if s >= e {
            return 0;
        }
        let mut have = 0;
        self.words(s, e, |w, m, _| have += (*w & m).count_ones());
        (e - s) - have
    }
}

impl TcpSender {
    /// RFC 6675 `SetPipe` with the loss boundary `L` (every un-SACKed segment `≤ L` is lost;
    /// after a timeout, every one up to the recovery point): `(pipe, L)` — un-SACKed segments
    /// above `L`, plus the lost ones retransmitted since the last timeout and not SACKed since
    /// (Linux's `tcp_packets_in_flight`, ns-3's `BytesInFlight`). `None` without SACK.
    pub(super) fn sack_pipe(&mut self) -> Option<(u32, Option<u32>)> {
        let (una, nxt, dupthresh) = (self.snd_una, self.snd_nxt, self.dupthresh);
        let (rto_loss, recover) = (self.rto_loss, self.recover);
        let sb = self.sb.as_deref_mut()?;
        let mut lost = sb.lost_boundary(una, nxt, dupthresh);
        if rto_loss {
            // After a timeout everything un-SACKed up to the recovery point is lost.
            let rp = (recover.max(0) as u32).min(nxt.saturating_sub(1));
            lost = Some(lost.map_or(rp, |l| l.max(rp)));
        }
        let above = lost.map_or(una, |l| l + 1);
        let pipe = sb.unsacked(above, nxt) + sb.rtx_in(una, above.min(nxt));
        Some((pipe, lost))
    }

    /// RFC 6675 §5 step (C): while `cwnd − pipe ≥ 1`, send `NextSeg()` (rule 1: the lowest
    /// lost, un-SACKed segment above `HighRxt` not retransmitted since the last timeout;
    /// rule 2: new data).
    pub(super) fn sack_transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        let una = self.snd_una;
        let Some((pipe, lost)) = self.sack_pipe() else {
            return;
        };
        // Rule 1.b: only holes below the highest SACKed segment. It matters after a timeout,
        // which marks everything un-SACKed up to the recovery point lost, also the segments
        // sent in the last round trip whose SACKs are still on their way; resending those is
        // a duplicate for every one not dropped. ns-3's `TcpTxBuffer::NextSeg` applies 1.b
        // (and, with no SACK above `snd_una`, resends every lost segment); Linux's
        // `tcp_timeout_mark_lost` does not mark segments sent within the last RACK window
        // lost. Outside a timeout `L` is below the highest SACK anyway.
        let lost = match self.sb.as_deref().and_then(|sb| sb.highest_sacked()) {
            Some(h) => lost.and_then(|l| h.checked_sub(1).map(|b| l.min(b))),
            None => lost,
        };
        let mut pipe = pipe as f64;
        let high_rxt = self.sb.as_deref().map_or(0, |sb| sb.high_rxt);
        let mut cursor = (high_rxt + 1).max(una);
        let before = self.snd_nxt;
        while self.cwnd - pipe >= 1.0 {
            let mut hole = None;
            if let (Some(l), Some(sb)) = (lost, self.sb.as_deref()) {
                while cursor <= l {
                    if !sb.is_sacked(cursor) && !sb.is_rtx(cursor) {
                        hole = Some(cursor);
                        break;
                    }
                    cursor += 1;
                }
            }
            if let Some(h) = hole {
                // Paced like new data (Linux and ns-3 pace every segment).
                if !self.pace(now) {
                    break;
                }
                self.emit(h, now, out);
                if let Some(sb) = self.sb.as_deref_mut() {
                    sb.high_rxt = h;
                }
                cursor = h + 1;
            } else if self.snd_nxt < self.snd_una + self.rwnd && self.pace(now) {
                self.emit(self.snd_nxt, now, out);
                self.snd_nxt += 1;
            } else {
                break;
            }
            pipe += 1.0;
        }
        if self.snd_nxt > before && self.deadline.is_none() {
            self.restart_timer(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoreboard_counts_blocks_across_words_and_wrap() {
        let mut sb = Scoreboard::new(128);
        // Blocks straddling a word boundary and the ring's wrap (seq 120..140 → slots 120..12).
        assert_eq!(sb.update(&[(120, 140)], 100, 200), (20, Some(139)));
        assert_eq!(sb.update(&[(125, 141)], 100, 200), (1, Some(140)));
        assert_eq!(sb.count(), 21);
        assert!(sb.is_sacked(130) && !sb.is_sacked(119) && !sb.is_sacked(141));
        assert_eq!(sb.unsacked(100, 150), 50 - 21);
        // Three SACKed segments above 119 (138, 139, 140 from the top): lost up to 137.
        assert_eq!(sb.lost_boundary(100, 150, 3), Some(137));
        sb.advance(100, 130);
        assert_eq!(sb.count(), 11);
        sb.clear(130, 200);
        assert_eq!(sb.count(), 0);
        assert!(!sb.is_sacked(135));
    }
}
