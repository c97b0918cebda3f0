// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title TaxRewards
/// @notice The holder allocation of four.meme's TaxToken: each account holding at least `minShare`
/// tokens has a share equal to its balance; a dispatch adds the holders' BNB (wrapped, the token's
/// `quote`) to `feePerShare`, and an account claims its part with `claimFee`, in WBNB.
abstract contract TaxRewards {
    struct UserInfo {
        uint256 share;
        uint256 rewardDebt;
        uint256 claimable;
        uint256 claimed;
    }

    uint256 internal constant MAGNITUDE = 2 ** 128;
    address internal constant DEAD_ADDRESS = 0x000000000000000000000000000000000000dEaD;

    /// WBNB: the asset holder rewards are paid in.
    address public immutable quote;
    uint256 public immutable rateHolder;
    uint256 public immutable minShare;

    mapping(address => UserInfo) public userInfo;
    address[] internal _users;
    mapping(address => bool) internal _listed;
    uint256 public totalShares;
    uint256 public feePerShare;
    /// Total BNB allocated to holders.
    uint256 public feeHolder;

    event FeeClaimed(address account, uint256 amount);

    constructor(address quote_, uint256 rateHolder_, uint256 minShare_) {
        quote = quote_;
        rateHolder = rateHolder_;
        minShare = minShare_;
    }

    function _isShareHolder(address account) internal view virtual returns (bool);
    function _shareOf(address account) internal view virtual returns (uint256);
    function _wrap(uint256 amount) internal virtual;

    /// @dev Settles what the old share earned, then takes the new balance as the share.
    function _updateShare(address account) internal {
        if (rateHolder == 0 || !_isShareHolder(account)) return;
        uint256 next = _shareOf(account);
        if (next < minShare) next = 0;
        UserInfo storage u = userInfo[account];
        uint256 cur = u.share;
        if (next == cur) return;
        if (!_listed[account]) {
            _listed[account] = true;
            _users.push(account);
        }
        uint256 acc = (cur * feePerShare) / MAGNITUDE;
        if (acc > u.rewardDebt) u.claimable += acc - u.rewardDebt;
        u.share = next;
        u.rewardDebt = (next * feePerShare) / MAGNITUDE;
        totalShares = totalShares - cur + next;
    }

    /// @dev `amount` BNB (held by the token) goes to the holders, pro rata of their shares.
    function _accrue(uint256 amount) internal {
        feePerShare += (amount * MAGNITUDE) / totalShares;
        feeHolder += amount;
        _wrap(amount);
    }

    function claimableFee(address account) public view returns (uint256) {
        UserInfo storage u = userInfo[account];
        uint256 acc = (u.share * feePerShare) / MAGNITUDE;
        return u.claimable + (acc > u.rewardDebt ? acc - u.rewardDebt : 0);
    }

    function claimedFee(address account) external view returns (uint256) {
        return userInfo[account].claimed;
    }

    function claimFee() external {
        _claim(msg.sender);
    }

    /// @notice Claims for each account (anyone may call it); each account receives its own reward.
    function claimFee(address[] calldata accounts) external {
        for (uint256 i = 0; i < accounts.length; i++) {
            _claim(accounts[i]);
        }
    }

    function _claim(address account) internal {
        uint256 amount = claimableFee(account);
        if (amount == 0) return;
        UserInfo storage u = userInfo[account];
        u.rewardDebt = (u.share * feePerShare) / MAGNITUDE;
        u.claimable = 0;
        u.claimed += amount;
        IERC20(quote).transfer(account, amount);
        emit FeeClaimed(account, amount);
    }

    function userCount() external view returns (uint256) {
        return _users.length;
    }

    /// @notice `count` slots from `index`: address(0) past the end, 0xdEaD below `minClaimable`.
    function users(uint256 index, uint256 count, uint256 minClaimable) external view returns (address[] memory a) {
        a = new address[](count);
        for (uint256 i = 0; i < count; i++) {
            if (index + i >= _users.length) break;
            address e = _users[index + i];
            a[i] = minClaimable > 0 && claimableFee(e) < minClaimable ? DEAD_ADDRESS : e;
        }
    }
}
